#if !canImport(Darwin)
  import Synchronization
#endif

#if canImport(Darwin)
  /// A flag raised once; reading it takes the flag's lock (`Atomic` needs macOS 15).
  @usableFromInline
  final class Flag: Sendable {
    @usableFromInline let raised = Locked(false)

    @usableFromInline
    init() {}

    /// Whether ``raise()`` was called.
    @inlinable
    var isRaised: Bool {
      raised.withLock { $0 }
    }

    /// Raises the flag; returns `true` for the call that raised it, `false` when it was up.
    @usableFromInline
    func raise() -> Bool {
      raised.withLock { raised in
        defer { raised = true }
        return !raised
      }
    }
  }
#else
  /// A flag raised once; reading it is a single atomic load.
  @usableFromInline
  final class Flag: Sendable {
    @usableFromInline let raised = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    /// Whether ``raise()`` was called.
    @inlinable
    var isRaised: Bool {
      raised.load(ordering: .acquiring)
    }

    /// Raises the flag; returns `true` for the call that raised it, `false` when it was up.
    @usableFromInline
    func raise() -> Bool {
      !raised.exchange(true, ordering: .acquiringAndReleasing)
    }
  }
#endif
