import Foundation

/// Every `NSObject` subclass carries a context (`alert.contextInfo`), as in Objective-C.
///
/// The conformance adds no member to `NSObject` itself, so a subclass of yours that already
/// has a `contextInfo` property still compiles. That property then hides the default one when
/// the subclass is used directly, while generic code over ``ContextCarrying`` still reaches
/// the default: give NSObject subclasses no `contextInfo` of their own.
extension NSObject: ContextCarrying {}
