/// A closure wrapped in a struct, so that it passes through generic code (`Locked.withLock`,
/// the state machines) as it is: a bare closure returned through a generic parameter is
/// re-abstracted, which allocates a thunk on every pass (measured: one `malloc` per
/// `FakePeriodicTaskLauncher.fire()` before this wrapper, none after).
struct Work: Sendable {
  let run: @Sendable () -> Void
}
