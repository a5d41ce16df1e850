// A stand-in for Apple's `ObjectiveC` module, used only by `.ci/check-apple-paths` to type-check
// TinyBlocks' `#if canImport(ObjectiveC)` branches on Linux. It declares exactly the Apple
// declarations those branches use, as Swift imports them; each cites the documented declaration
// it copies. Bodies are never run.

/// https://developer.apple.com/documentation/objectivec/objc_associationpolicy
/// <objc/runtime.h>: `typedef OBJC_ENUM(uintptr_t, objc_AssociationPolicy) {
/// OBJC_ASSOCIATION_ASSIGN = 0, OBJC_ASSOCIATION_RETAIN_NONATOMIC = 1,
/// OBJC_ASSOCIATION_COPY_NONATOMIC = 3, OBJC_ASSOCIATION_RETAIN = 01401,
/// OBJC_ASSOCIATION_COPY = 01403 };`, imported as an enum of `UInt`.
public enum objc_AssociationPolicy: UInt, Sendable {
  case OBJC_ASSOCIATION_ASSIGN = 0
  case OBJC_ASSOCIATION_RETAIN_NONATOMIC = 1
  case OBJC_ASSOCIATION_COPY_NONATOMIC = 3
  case OBJC_ASSOCIATION_RETAIN = 769
  case OBJC_ASSOCIATION_COPY = 771
}

/// https://developer.apple.com/documentation/objectivec/objc_getassociatedobject(_:_:)
/// `func objc_getAssociatedObject(_ object: Any, _ key: UnsafeRawPointer) -> Any?`
public func objc_getAssociatedObject(_ object: Any, _ key: UnsafeRawPointer) -> Any? { nil }

/// https://developer.apple.com/documentation/objectivec/objc_setassociatedobject(_:_:_:_:)
/// `func objc_setAssociatedObject(_ object: Any, _ key: UnsafeRawPointer, _ value: Any?,
/// _ policy: objc_AssociationPolicy)`
public func objc_setAssociatedObject(
  _ object: Any, _ key: UnsafeRawPointer, _ value: Any?, _ policy: objc_AssociationPolicy
) {}
