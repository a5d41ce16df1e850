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
  /// The limiters call this with their own lock held, so that the launcher's state always
  /// follows the order of their steps: launchers never run the task from `start()` or
  /// `stop()`, so this cannot call back into the limiter.
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
