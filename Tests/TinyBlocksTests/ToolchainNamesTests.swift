// Proof that TinyBlocks' module names never shadow the toolchain's: this file imports Apple's
// `Observation` (with its `@Observable` macro) next to every Tiny module and uses both.
// Each new block adds its import and a line that uses it.

import Foundation
import Observation
import Testing
import TinyTestSupport
import TinyContext
import TinyEnvironment
import TinyObservation
import TinyScheduling
import TinySequence
import TinyWaiting

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Observable
final class Basket: ContextCarrying {
  var prices: [Int] = []
}

/// A flag that a `@Sendable` change handler can set.
private final class Flag: @unchecked Sendable {  // safe: `raised` is only touched under `lock`
  private let lock = NSLock()
  private var raised = false

  func raise() {
    lock.withLock { raised = true }
  }

  var isRaised: Bool {
    lock.withLock { raised }
  }
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ToolchainNamesTests {
  @Test func appleObservationAndTinyModulesShareAFile() throws {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let basket = Basket()
    let changed = Flag()
    _ = withObservationTracking {
      basket.prices.sum()
    } onChange: {
      changed.raise()
    }
    basket.prices.append(contentsOf: [3, 4])
    #expect(changed.isRaised)
    #expect(basket.prices.sum() == 7)
    #expect(basket.prices.max(of: { -$0 }) == 3)
    let totalKey = ContextKey<Int>("total")
    basket.contextInfo[totalKey] = basket.prices.sum()
    #expect(basket.contextInfo[totalKey] == 7)
    let stored = withWorld(.mock) {
      Current.storage.set(basket.prices, forKey: "prices")
      return Current.storage.value(forKey: "prices", as: [Int].self)
    }
    #expect(stored == [3, 4])

    // TinyObservation's atoms next to Apple's `@Observable` and `withObservationTracking`.
    let total = Atom(0)
    let watched = Flag()
    let token = total.watch { _ in watched.raise() }
    total.set(basket.prices.sum())
    #expect(watched.isRaised)
    #expect(DerivedAtom(total) { $0 * 2 }.value == 14)
    token.cancel()
    #expect(try Promise(value: basket.prices).map { $0.sum() }.result?.get() == 7)
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    limiter.execute { changed.raise() }
    #expect(launcher.isActive)
  }
}
