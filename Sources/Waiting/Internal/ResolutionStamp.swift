import TinyInternals

#if canImport(Darwin)
  /// The last resolution stamp handed out. (`Atomic` needs macOS 15 / iOS 18, above the
  /// package's floor; an `os_unfair_lock` around one integer costs about as much.)
  private let lastResolutionStamp = Locked<UInt64>(0)

  /// A number larger than every one handed out before it, in every thread's view: a promise
  /// takes one, with its lock held, when it resolves, so the stamps order the resolutions, and
  /// a resolution that happened before another has the smaller stamp.
  func nextResolutionStamp() -> UInt64 {
    lastResolutionStamp.withLock { stamp in
      stamp += 1
      return stamp
    }
  }
#else
  import Synchronization

  /// The last resolution stamp handed out.
  private let lastResolutionStamp = Atomic<UInt64>(0)

  /// A number larger than every one handed out before it, in every thread's view: a promise
  /// takes one, with its lock held, when it resolves, so the stamps order the resolutions, and
  /// a resolution that happened before another has the smaller stamp. (Relaxed is enough: the
  /// increments of one atomic variable form one order that agrees with happens-before.)
  func nextResolutionStamp() -> UInt64 {
    lastResolutionStamp.wrappingAdd(1, ordering: .relaxed).newValue
  }
#endif
