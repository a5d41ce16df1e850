import Foundation

extension ObservationGroup {
  /// Observes a notification; while the group is active, `handler` receives its name on the main
  /// actor each time it is posted.
  ///
  /// `Notification` is not `Sendable`, so only its name reaches the handler; to carry more, use
  /// `observe(notification:object:center:carrying:_:)`. A notification posted on the main
  /// queue is handled synchronously, during `post`, unless an earlier one still waits; one
  /// posted elsewhere is handled on the main queue, in posting order. Notifications have no
  /// initial value: ``begin()`` delivers nothing for them.
  ///
  /// ```swift
  /// observations.observe(notification: .NSSystemClockDidChange) { [weak self] _ in
  ///   self?.refreshClock()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: The notification's name.
  ///   - object: Only notifications posted by this object, or any when `nil`.
  ///   - center: The notification center; `.default` when not given.
  ///   - handler: Receives the notification's name.
  /// - Returns: The observation's identifier, for ``remove(_:)``.
  @discardableResult
  public func observe(
    notification name: Notification.Name,
    object: AnyObject? = nil,
    center: NotificationCenter = .default,
    _ handler: @escaping @MainActor @Sendable (Notification.Name) -> Void
  ) -> ObservationID {
    observe(notification: name, object: object, center: center, carrying: \.name, handler)
  }

  /// Observes a notification; while the group is active, `handler` receives, on the main actor,
  /// what `payload` read from each posted notification.
  ///
  /// `payload` runs synchronously on the posting thread, during `post`, and turns the
  /// non-`Sendable` `Notification` into a `Sendable` value; only that value crosses to the main
  /// actor. The notification's `object` and `userInfo` never cross unless `payload` copies
  /// `Sendable` parts of them. Delivery order and timing are those of
  /// `observe(notification:object:center:_:)`.
  ///
  /// ```swift
  /// observations.observe(
  ///   notification: UIResponder.keyboardWillChangeFrameNotification,
  ///   carrying: { ($0.userInfo?[UIResponder.keyboardFrameEndUserInfoKey] as? CGRect) ?? .zero }
  /// ) { [weak self] frame in
  ///   self?.bottomInset = frame.height
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: The notification's name.
  ///   - object: Only notifications posted by this object, or any when `nil`.
  ///   - center: The notification center; `.default` when not given.
  ///   - payload: Reads what the handler needs from the notification, on the posting thread.
  ///   - handler: Receives the payload.
  /// - Returns: The observation's identifier, for ``remove(_:)``.
  @discardableResult
  public func observe<Payload: Sendable>(
    notification name: Notification.Name,
    object: AnyObject? = nil,
    center: NotificationCenter = .default,
    carrying payload: @escaping @Sendable (Notification) -> Payload,
    _ handler: @escaping @MainActor @Sendable (Payload) -> Void
  ) -> ObservationID {
    add(
      NotificationMember(
        name: name, object: object, center: center, payload: payload, handler: handler))
  }
}

/// A group's observation of a notification.
final class NotificationMember<Payload: Sendable>: GroupMember {
  /// A run's registration with the notification center, which `end` undoes when the
  /// registration is released.
  private final class Registration {
    let end: () -> Void
    init(end: @escaping () -> Void) { self.end = end }
    deinit { end() }
  }

  private let name: Notification.Name
  private weak var object: AnyObject?
  private let filtersByObject: Bool
  private let center: NotificationCenter
  private let payload: @Sendable (Notification) -> Payload
  private let handler: @MainActor @Sendable (Payload) -> Void
  private var registration: Registration?

  init(
    name: Notification.Name,
    object: AnyObject?,
    center: NotificationCenter,
    payload: @escaping @Sendable (Notification) -> Payload,
    handler: @escaping @MainActor @Sendable (Payload) -> Void
  ) {
    self.name = name
    self.object = object
    filtersByObject = object != nil
    self.center = center
    self.payload = payload
    self.handler = handler
  }

  override func begin() {
    // An object to filter by that is gone can post nothing more.
    if filtersByObject && object == nil { return }
    let stopped = Flag()
    let relay = MainRelay<Payload>(stopped: stopped) { [weak self] in self?.handler($0) }
    let payload = self.payload
    let observer = center.addObserver(forName: name, object: object, queue: nil) { note in
      guard !stopped.isRaised else { return }
      relay.send(payload(note))
    }
    registration = Registration { [center] in
      // No payload is read, and no handler call starts, once the flag is up.
      stopped.raise()
      center.removeObserver(observer)
    }
  }

  override func end() {
    registration = nil
  }
}
