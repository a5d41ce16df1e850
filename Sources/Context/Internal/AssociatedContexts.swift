import TinyInternals

#if canImport(ObjectiveC)
  import Foundation
  import ObjectiveC

  /// The default contexts on Apple platforms: each object's ``ContextStorage`` is an
  /// associated object of the Objective-C runtime, retained by the object and released when
  /// it is deallocated (exact lifetime, no table to sweep).
  enum AssociatedContexts {
    /// An object whose address is the association key, unique to this module.
    private final class Key: Sendable {}

    private static let key = Key()
    /// Makes creating an object's context atomic: two threads attaching at once get one.
    private static let creation = Locked(())

    /// The object's context, attached on first use.
    static func contextInfo(for owner: AnyObject) -> ContextInfo {
      let address = UnsafeRawPointer(Unmanaged.passUnretained(key).toOpaque())
      if let storage = objc_getAssociatedObject(owner, address) as? ContextStorage {
        return ContextInfo(storage: storage)
      }
      // Nothing here releases a value under the lock: the association is only set when
      // there was none.
      let storage = creation.withLock { _ -> ContextStorage in
        if let storage = objc_getAssociatedObject(owner, address) as? ContextStorage {
          return storage
        }
        let storage = ContextStorage()
        objc_setAssociatedObject(owner, address, storage, .OBJC_ASSOCIATION_RETAIN)
        return storage
      }
      return ContextInfo(storage: storage)
    }
  }
#endif
