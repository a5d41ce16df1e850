import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite struct WatchableChangesTests {
  @Test func streamsEveryLaterChangeInOrder() async {
    let count = Atom(0)
    let stream = count.changes  // the watch starts here: later changes are buffered
    await onNewThread {
      for value in 1...5 { count.set(value) }
    }
    var seen: [Int] = []
    for await change in stream {
      seen.append(change.new)
      if change.new == 5 { break }
    }
    #expect(seen == [1, 2, 3, 4, 5])
  }

  @Test func breakingOutOfTheLoopStopsTheWatch() async {
    let count = Atom(0)
    do {
      let stream = count.changes
      count.set(1)
      for await _ in stream { break }
    }
    #expect(count.watcherCount == 0)
  }

  @Test func cancellingTheTaskStopsTheWatch() async {
    let count = Atom(0)
    let watching = Gate()
    let started = Gate()
    let task = Task {
      let stream = count.changes  // watches from here on
      watching.open()
      var seen = 0
      for await _ in stream {
        seen += 1
        started.open()
      }
      return seen
    }
    let token = count.watch { _ in }  // a second watcher, to tell the stream's apart
    await watching.opened()
    #expect(count.watcherCount == 2)
    count.set(1)
    await started.opened()
    task.cancel()
    #expect(await task.value == 1)
    #expect(count.watcherCount == 1)
    token.cancel()
  }
}
