import TinyInternals

#if !canImport(Darwin)
  import Synchronization
#endif

#if canImport(Darwin)
  /// A flag raised once; reading it takes the flag's lock (`Atomic` needs macOS 15).
  final class Flag: Sendable {
    let raised = Locked(false)

    init() {}

    /// Whether ``raise()`` was called.
    var isRaised: Bool {
      raised.withLock { $0 }
    }

    /// Raises the flag; returns `true` for the call that raised it, `false` when it was up.
    func raise() -> Bool {
      raised.withLock { raised in
        defer { raised = true }
        return !raised
      }
    }
  }
#else
  /// A flag raised once; reading it is a single atomic load.
  final class Flag: Sendable {
    let raised = Atomic<Bool>(false)

    init() {}

    /// Whether ``raise()`` was called.
    var isRaised: Bool {
      raised.load(ordering: .acquiring)
    }

    /// Raises the flag; returns `true` for the call that raised it, `false` when it was up.
    func raise() -> Bool {
      !raised.exchange(true, ordering: .acquiringAndReleasing)
    }
  }
#endif
