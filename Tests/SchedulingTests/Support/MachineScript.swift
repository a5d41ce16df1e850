@testable import TinyScheduling

/// The steps of a limiter's state machine, so one script runner serves ``RateLimiterState``
/// and ``DebouncerState``.
protocol ActionMachine {
  init()
  /// A new action: what to run now and what the launcher must do.
  mutating func execute(_ action: String) -> (run: String?, launcher: LauncherCommand?)
  mutating func tick() -> (run: String?, launcher: LauncherCommand?)
  mutating func finish() -> String?
  mutating func cancel() -> LauncherCommand?
  mutating func flush() -> (flushed: Bool, run: String?, launcher: LauncherCommand?)
}

extension RateLimiterState: ActionMachine where Action == String {
  mutating func execute(_ action: String) -> (run: String?, launcher: LauncherCommand?) {
    let step: Step = execute(action)
    return (step.run, step.launcher)
  }

  mutating func tick() -> (run: String?, launcher: LauncherCommand?) {
    let step: Step = tick()
    return (step.run, step.launcher)
  }

  mutating func flush() -> (flushed: Bool, run: String?, launcher: LauncherCommand?) {
    let (flushed, run): (Bool, String?) = flush()
    return (flushed, run, nil)
  }
}

extension DebouncerState: ActionMachine where Action == String {
  mutating func execute(_ action: String) -> (run: String?, launcher: LauncherCommand?) {
    let command: LauncherCommand = execute(action)
    return (nil, command)
  }

  mutating func tick() -> (run: String?, launcher: LauncherCommand?) {
    let step: Step = tick()
    return (step.run, step.launcher)
  }

  mutating func flush() -> (flushed: Bool, run: String?, launcher: LauncherCommand?) {
    let (flushed, step): (Bool, Step) = flush()
    return (flushed, step.run, step.launcher)
  }
}

/// Runs `script` on a fresh state machine and returns what it asked for, as tokens.
///
/// Script tokens: a lowercase word executes an action of that name; a word ending in `*` is an
/// action that keeps running until a later `D` (done); `|` is a tick, `C` a cancel, `F` a flush.
/// Result tokens: an action's name when the machine says to run it (after a `D`, the actions
/// it hands over follow), `S`, `X` and `R` for the launcher commands start, stop and restart,
/// and `f` for a flush that found nothing.
func run<Machine: ActionMachine>(_ script: String, on _: Machine.Type) -> String {
  var machine = Machine()
  var out: [String] = []
  var held = false
  /// Logs an action the machine says to run, and finishes it unless it is held.
  func start(_ first: String?) {
    var next = first
    while let action = next {
      out.append(action.replacing("*", with: ""))
      if action.hasSuffix("*") {
        held = true
        return
      }
      next = machine.finish()
    }
  }
  func log(_ command: LauncherCommand?) {
    switch command {
    case .start: out.append("S")
    case .stop: out.append("X")
    case .restart: out.append("R")
    case nil: break
    }
  }
  for token in script.split(separator: " ").map(String.init) {
    switch token {
    case "|":
      let (action, command) = machine.tick()
      log(command)
      start(action)
    case "C":
      log(machine.cancel())
    case "F":
      let (flushed, action, command) = machine.flush()
      if !flushed { out.append("f") }
      log(command)
      start(action)
    case "D":
      precondition(held, "script error: D without a running action")
      held = false
      start(machine.finish())
    default:
      let (action, command) = machine.execute(token)
      log(command)
      start(action)
    }
  }
  return out.joined(separator: " ")
}
