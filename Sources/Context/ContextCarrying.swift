/// A class whose instances carry a ``ContextInfo``: data attached by other code, living as
/// long as the instance.
///
/// Conforming takes one line; the default ``contextInfo`` finds the instance's context
/// outside it. Every `NSObject` subclass already conforms.
///
/// ```swift
/// final class Connection: ContextCarrying {}
/// connection.contextInfo[requestKey] = request
///
/// final class Row: ContextCarrying {
///   let contextInfo = ContextInfo()   // owner-held: exact lifetime, the fastest reads
/// }
/// ```
///
/// Where the default context lives:
///
/// - **Apple platforms:** in an associated object of the Objective-C runtime, released with
///   the instance.
/// - **Linux:** in ``ContextTable/shared``, which holds the instance weakly and reclaims its
///   context as the table is used after the instance is gone.
/// - **A stored `contextInfo` property** (`let contextInfo = ContextInfo()`): in the instance
///   itself, released with it on every platform, and faster to reach.
public protocol ContextCarrying: AnyObject {
  /// The instance's context: values attached to it under ``ContextKey``s or names.
  ///
  /// ```swift
  /// alert.contextInfo[buttonKey] = sender
  /// alert.contextInfo[buttonKey]   // Optional(sender)
  /// ```
  var contextInfo: ContextInfo { get }
}

extension ContextCarrying {
  /// The instance's context, kept outside it: in an associated object on Apple platforms, in
  /// ``ContextTable/shared`` on Linux.
  ///
  /// On Linux, reading an instance that has no context yet creates none; the first write
  /// does. On Apple platforms, the first use attaches an empty context, released with the
  /// instance.
  ///
  /// ```swift
  /// final class Connection: ContextCarrying {}
  /// let connection = Connection()
  /// connection.contextInfo[requestKey] = request
  /// connection.contextInfo[requestKey]   // Optional(request)
  /// ```
  public var contextInfo: ContextInfo {
    #if canImport(ObjectiveC)
      AssociatedContexts.contextInfo(for: self)
    #else
      ContextTable.shared.contextInfo(for: self)
    #endif
  }
}
