/// What a ``RateLimiter`` or ``Debouncer`` asks of its launcher after a step of its state
/// machine.
enum LauncherCommand: Equatable, Sendable {
  case start
  case stop
  /// Stop, then start: the next tick comes one full interval from now.
  case restart
}

extension PeriodicTaskLauncher {
  /// Carries out `command`; `nil` does nothing.
  ///
  /// The limiters call this with no lock held, one thread at a time, in the order of their
  /// steps (see `LimiterCore`): the launcher may be the user's own type.
  func perform(_ command: LauncherCommand?) {
    switch command {
    case .start: start()
    case .stop: stop()
    case .restart:
      stop()
      start()
    case nil: break
    }
  }
}
