import TinyInternals
/// Records values from any thread, in the order they arrive.
public final class Recorder<Element: Sendable>: Sendable {
  private let items = Locked<[Element]>([])

  /// Creates an empty recorder.
  public init() {}

  /// Appends `element`.
  public func record(_ element: Element) {
    items.withLock { $0.append(element) }
  }

  /// Everything recorded so far, oldest first.
  public var all: [Element] {
    items.withLock { $0 }
  }

  /// The number of values recorded so far.
  public var count: Int {
    items.withLock { $0.count }
  }

  /// Empties the recorder and returns what it held.
  public func removeAll() -> [Element] {
    items.withLock { items in
      defer { items = [] }
      return items
    }
  }
}

/// A counter that many threads can bump.
public final class Counter: Sendable {
  private let count = Locked(0)

  /// Creates a counter at zero.
  public init() {}

  /// Adds one and returns the new count.
  @discardableResult
  public func increment() -> Int {
    count.withLock { count in
      count += 1
      return count
    }
  }

  /// The count so far.
  public var value: Int {
    count.withLock { $0 }
  }
}

/// An object to hold weakly, to prove that whatever captured it let go of it.
public final class Canary: Sendable {
  /// Creates a canary.
  public init() {}
}

/// Runs `action` when it is deallocated: a value whose `deinit` is user code that calls back
/// into the object that releases it.
public final class OnDeinit: Sendable {
  private let action: @Sendable () -> Void

  /// Creates an object that runs `action` when it is deallocated.
  public init(_ action: @escaping @Sendable () -> Void) {
    self.action = action
  }

  deinit {
    action()
  }
}
