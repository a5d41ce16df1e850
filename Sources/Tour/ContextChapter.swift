import Foundation
import TinyContext

/// TinyContext: data attached to any object, living as long as the object.
let contextChapter = Chapter(
  title: "TinyContext — data attached to any object, for as long as the object lives",
  problem: """
    A screen asks "Delete Linus?" in an alert. When the alert answers, which row was it about?
    Without a place on the alert for that, the screen keeps a property only the alert needs.
    """
) {
  final class Alert: NSObject {
    let message: String
    init(message: String) { self.message = message }
  }
  final class Row: NSObject, Sendable {
    let title: String
    init(title: String) { self.title = title }
  }
  let rowKey = ContextKey<Row>("row")

  let linus = Row(title: "Linus")
  let alert = Alert(message: "Delete Linus?")
  alert.contextInfo[rowKey] = linus
  show("alert.contextInfo[rowKey] = linus", "stored on the alert, typed")
  show("alert.contextInfo[rowKey]?.title", alert.contextInfo[rowKey]?.title ?? "nil")
  show(
    "ContextKey<Row>(\"row\") finds it?",
    alert.contextInfo[ContextKey<Row>("row")] == nil
      ? "no: keys are unique by identity, not by name" : "yes")

  print()
  say("An extension property backed by the context: rows that were never expanded cost nothing.")
  let expandedKey = DefaultedContextKey<Bool>("expanded", default: false)
  let rows = (1...5).map { Row(title: "row \($0)") }
  rows[1].contextInfo[expandedKey] = true
  rows[3].contextInfo[expandedKey] = true
  show("rows.map { $0.contextInfo[expandedKey] }", rows.map { $0.contextInfo[expandedKey] })
  #if !canImport(ObjectiveC)
    let entries = rows.filter { ContextTable.shared.hasContext(for: $0) }.count
    show("rows with an entry in the side table", entries)
  #endif

  print()
  say("Eight connections whose chunks arrive on concurrent callbacks, each into its own buffer:")
  final class Connection: ContextCarrying, Sendable {
    let id: Int
    init(id: Int) { self.id = id }
  }
  final class Buffer: @unchecked Sendable {  // safe: `count` is only touched under `lock`
    private let lock = NSLock()
    private var count = 0
    func append(_ bytes: Int) {
      lock.lock()
      count += bytes
      lock.unlock()
    }
    var total: Int {
      lock.lock()
      defer { lock.unlock() }
      return count
    }
  }
  let bufferKey = ContextKey<Buffer>("buffer")
  let connections = (1...8).map { Connection(id: $0) }
  DispatchQueue.concurrentPerform(iterations: 8 * 100) { delivery in
    let connection = connections[delivery % 8]
    connection.contextInfo.value(for: bufferKey, orInsert: Buffer()).append(connection.id)
  }
  show(
    "bytes per connection (100 chunks of id bytes)",
    connections.map { $0.contextInfo[bufferKey]?.total ?? 0 })

  print()
  say("Lifetime: the values go with their object.")
  final class Probe: Sendable {}
  let probeKey = ContextKey<Probe>("probe")
  weak var probe: Probe?
  do {
    let owner = Connection(id: 0)
    let value = Probe()
    probe = value
    owner.contextInfo[probeKey] = value
  }
  #if canImport(ObjectiveC)
    show("value alive after its owner is gone?", probe != nil)
  #else
    show("value alive right after its owner is gone?", probe != nil)
    let bystander = Connection(id: 0)
    var lookups = 0
    while probe != nil, lookups < 1_000_000 {
      _ = ContextTable.shared.hasContext(for: bystander)
      lookups += 1
    }
    show("…after further lookups of the side table", "\(probe != nil) (\(lookups) lookups)")
    say("(Linux has no deallocation hook: the table reclaims dead entries as it is used.)")
  #endif
}
