import Dispatch
import Foundation
import Observation
import TinyObservation

/// TinyObservation: atoms, derived atoms, an observation group, tracking as SwiftUI does, and an
/// optimistic save.
let observationChapter = Chapter(
  title: "TinyObservation — values you can watch, from any thread",
  problem: """
    A login form. Actions update the model; observation updates the view. The view never asks
    "what changed?", and a save that the server refuses takes its change back by itself.
    """
) {
  let username = Atom("")
  let password = Atom("")
  let canLogin = DerivedAtom(username, password) { !$0.isEmpty && !$1.isEmpty }
  show("canLogin.value", canLogin.value)

  say("")
  say("The view's observation group, begun when the view appears:")
  let group = await MainActor.run {
    let group = ObservationGroup()
    group.observe(username) { say("  view: username field shows \"\($0.new)\"") }
    group.observe(canLogin) { change in
      say(
        "  view: login button \(change.new ? "enabled" : "disabled")\(change.isInitial ? " (initial)" : "")"
      )
    }
    group.begin()  // the initial values, before begin() returns
    return group
  }
  await MainActor.run {
    say("The user types (on the main queue, so the view updates at once):")
    username.set("ada")
    password.set("secret")  // only canLogin changes on screen
  }

  say("")
  say("A background load replaces the username; the change reaches the view on the main queue:")
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    Thread {
      username.set("grace")
      done.resume()
    }.start()
  }
  await MainActor.run { group.end() }  // the queued change was delivered before this ran
  username.set("ignored")
  say("(after end(), nothing reaches the view)")

  say("")
  say("SwiftUI tracks what a view's body reads, with withObservationTracking; an atom read there")
  say("is tracked, and the body runs again after each change, made on any thread:")
  if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
    let clicks = Atom(0)
    @Sendable func body() {
      let text = withObservationTracking {
        counted(clicks.value, "click")  // the read registers, as in a SwiftUI body
      } onChange: {
        body()  // SwiftUI schedules the body again; here it runs at once, on the changing thread
      }
      say("  body: \(text)")
    }
    body()
    clicks.update { $0 += 1 }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread {
        clicks.update { $0 += 1 }  // a background thread: the body is tracked all the same
        done.resume()
      }.start()
    }
  }

  say("")
  say("An optimistic save the server refuses:")
  struct Refused: Error {}
  let starred = Atom(false)
  let token = starred.watch { change in
    say("  watcher: starred \(change.old) → \(change.new)\(change.error.map { " (\($0))" } ?? "")")
  }
  do {
    try await starred.update(optimistically: { $0 = true }) { value in
      say("  server receives \(value)… and refuses")
      throw Refused()
    }
  } catch {
    show("after the failed save, starred.value", starred.value)
  }
  token.cancel()

  say("")
  say("Eight threads, 10,000 increments each; one watcher counts every change, in order:")
  let count = Atom(0)
  let seen = Atom(0)
  let counter = count.watch { change in
    seen.update { if change.new == $0 + 1 { $0 = change.new } }
  }
  await withTaskGroup(of: Void.self) { tasks in
    for _ in 0..<8 {
      tasks.addTask {
        for _ in 0..<10_000 { count.update { $0 += 1 } }
      }
    }
  }
  counter.cancel()
  show("count.value", count.value)
  show("changes seen in order", seen.value)
}
