import TinyInternals

#if !canImport(Darwin)
  import Synchronization
#endif

#if canImport(Darwin)
  /// A flag raised and lowered from any thread; each access takes the flag's lock (`Atomic`
  /// needs macOS 15). It is a leaf lock: nothing is called while it is held.
  final class TrackingFlag: Sendable {
    let raised = Locked(false)

    init() {}

    /// Whether the flag is up.
    var isRaised: Bool {
      raised.withLock { $0 }
    }

    /// Raises the flag.
    func raise() {
      raised.withLock { $0 = true }
    }

    /// Lowers the flag; returns whether it was up.
    func lower() -> Bool {
      raised.withLock { raised in
        defer { raised = false }
        return raised
      }
    }
  }
#else
  /// A flag raised and lowered from any thread; reading it is a single atomic load.
  final class TrackingFlag: Sendable {
    let raised = Atomic<Bool>(false)

    init() {}

    /// Whether the flag is up.
    var isRaised: Bool {
      raised.load(ordering: .acquiring)
    }

    /// Raises the flag.
    func raise() {
      raised.store(true, ordering: .releasing)
    }

    /// Lowers the flag; returns whether it was up.
    func lower() -> Bool {
      raised.exchange(false, ordering: .acquiringAndReleasing)
    }
  }
#endif
