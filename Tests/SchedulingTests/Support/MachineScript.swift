import TinyTestSupport
@testable import TinyScheduling

/// Runs `script` on a fresh state machine and returns what it asked for, as tokens.
///
/// Script tokens: a lowercase word executes an action of that name; a word ending in `*` is an
/// action that keeps running until a later `D` (done); `|` is a tick, `C` a cancel, `F` a flush.
/// Result tokens: an action's name when the machine says to run it (after a `D`, the actions
/// it hands over follow), `S`, `X` and `R` for the launcher commands start, stop and restart,
/// and `f` for a flush that found nothing.
func run<Machine: LimiterStateMachine<String>>(_ script: String, on _: Machine.Type) -> String {
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
      let step = machine.tick()
      log(step.launcher)
      start(step.run)
    case "C":
      log(machine.cancel().launcher)
    case "F":
      let (flushed, step) = machine.flush()
      if !flushed { out.append("f") }
      log(step.launcher)
      start(step.run)
    case "D":
      precondition(held, "script error: D without a running action")
      held = false
      start(machine.finish())
    default:
      let step = machine.execute(token)
      log(step.launcher)
      start(step.run)
    }
  }
  return out.joined(separator: " ")
}
