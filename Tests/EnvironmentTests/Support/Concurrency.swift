import Foundation
import TinyTestSupport

/// Lets `count` tasks wait until all of them have arrived, so that they provably overlap.
actor Rendezvous {
  private let count: Int
  private var arrived = 0
  private var waiting: [CheckedContinuation<Void, Never>] = []

  init(count: Int) {
    self.count = count
  }

  func arrive() async {
    arrived += 1
    if arrived == count {
      for continuation in waiting { continuation.resume() }
      waiting = []
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }
}
