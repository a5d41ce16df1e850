import Foundation
import TinyWaiting

/// TinyWaiting: a promise chain over a small fake API, and a waiter timing real work.
let waitingChapter = Chapter(
  title: "TinyWaiting — promises for values that arrive later, and a waiter to pause for them",
  problem: """
    A client signs in, then fetches a feed, each step finishing later on another thread; a test
    (or a command-line tool) has to pause until background work is done, without sleeping.
    """
) {
  struct Feed: Sendable {
    let items: [String]
  }
  struct SignInError: Error, CustomStringConvertible {
    var description: String { "SignInError: no user name" }
  }

  /// A fake API that answers on a background queue after a few milliseconds, as a server would.
  struct API: Sendable {
    func authenticate(user: String) -> Promise<String> {
      let token = Promise<String>()
      DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) {
        if user.isEmpty { token.reject(SignInError()) } else { token.fulfill("token-\(user)") }
      }
      return token
    }

    func feed(for token: String) -> Promise<Feed> {
      Promise {
        try await Task.sleep(for: .milliseconds(20))
        return Feed(items: ["tea at 4", "scones are back", "\(token) signed in"])
      }
    }
  }
  let api = API()
  let clock = ContinuousClock()

  say("Promises: each step starts when the previous one is fulfilled; errors skip ahead.")
  var started = clock.now
  let items = api.authenticate(user: "ada").then { api.feed(for: $0) }.map(\.items)
  show(
    "api.authenticate(user: \"ada\").then { api.feed(for: $0) }.map(\\.items)",
    "a Promise<[String]>")
  show("try await items.value", try await items.value)
  show("  elapsed", "\((clock.now - started).formatted(.units(allowed: [.milliseconds])))")
  let anonymous = api.authenticate(user: "").then { api.feed(for: $0) }.map(\.items)
  show(
    "api.authenticate(user: \"\")…  .recover { _ in [] }",
    try await anonymous.recover { _ in [] }.value)
  show(
    "items.isResolved, anonymous.result",
    "\(items.isResolved), \(anonymous.result.map { "\($0)" } ?? "pending")")
  let both = Promise.all([api.authenticate(user: "ada"), api.authenticate(user: "grace")])
  show("Promise.all([ada, grace]).value", try await both.value)
  let quick = Promise.race([
    api.authenticate(user: "slow").map { $0 + " (slow)" }, Promise(value: "cached"),
  ])
  show("Promise.race([network, Promise(value: \"cached\")])", try await quick.value)

  print()
  say("Timeouts: the loser is cancelled; the clock is any Clock<Duration> (the world's, in apps).")
  let slowFeed = Promise<[String]> {
    try await withTimeout(.milliseconds(10), clock: clock) {
      try await api.authenticate(user: "ada").then { api.feed(for: $0) }.map(\.items).value
    }
  }
  show(
    "withTimeout(.milliseconds(10), clock: clock) { a 20 ms sign-in, then a 20 ms feed }",
    try await slowFeed.recover { error in ["\(error)"] }.value)
  let token = api.authenticate(user: "ada")
  show(
    "try await token.value(timeout: .seconds(5), clock: clock)",
    try await token.value(timeout: .seconds(5), clock: clock))

  print()
  say("A waiter: three jobs count primes on background threads; the wait ends at the last one.")
  let waiter = Waiter(count: 3)
  let counts = Promise.all(
    (0..<3).map { part in
      let count = Promise<Int>()
      DispatchQueue.global().async {
        let range = (part * 20_000)..<((part + 1) * 20_000)
        count.fulfill(range.filter(isPrime).count)
        waiter.finish()
      }
      return count
    })
  started = clock.now
  let finished = await waiter.wait(timeout: .seconds(10))
  let waited = clock.now - started
  show("await waiter.wait(timeout: .seconds(10))", finished)
  show("  primes below 60,000, by part", try await counts.value)
  show(
    "  waited", waited.formatted(.units(allowed: [.milliseconds], fractionalPart: .show(length: 1)))
  )
  started = clock.now
  let timedOut = await Waiter().wait(timeout: .milliseconds(50))
  show(
    "await Waiter().wait(timeout: .milliseconds(50))",
    "\(timedOut), after \((clock.now - started).formatted(.units(allowed: [.milliseconds])))")
  say(
    "(synchronous code — an XCTest test, a main thread — calls waiter.wait(timeout:) without await)"
  )

  print()
  say("The main queue: work sent to it runs whenever the main thread is free to drain it. This")
  say("tour's top-level code is async, so the main queue drains while the tour awaits:")
  let ranOnMain = Waiter()
  Promise(value: "ready").whenResolved(on: .main) { _ in ranOnMain.finish() }
  show(
    "Promise(value: \"ready\").whenResolved(on: .main) { _ in ranOnMain.finish() }",
    "sent to the main queue")
  show("await ranOnMain.wait(timeout: .seconds(10))", await ranOnMain.wait(timeout: .seconds(10)))
  say("(a synchronous XCTest test, whose body occupies the main thread, drains it only while it")
  say("waits: waiter.wait(timeout:) spins the main run loop there)")
}

/// Whether `number` is prime, by trial division: deliberately plain work for the waiter.
private func isPrime(_ number: Int) -> Bool {
  if number < 2 { return false }
  var divisor = 2
  while divisor * divisor <= number {
    if number % divisor == 0 { return false }
    divisor += 1
  }
  return true
}
