import Foundation
import Testing
import TinyContext
import TinyTestSupport

// The three classic uses of `contextInfo`.

/// A button of some screen.
final class Button: NSObject, Sendable {
  let title: String

  init(title: String) {
    self.title = title
  }
}

/// An alert that reports which of its buttons was clicked, as `UIAlertView` did.
final class Alert: NSObject {
  let message: String
  weak var delegate: ListScreen?

  init(message: String) {
    self.message = message
  }

  func click(buttonAt index: Int) {
    delegate?.alert(self, clickedButtonAt: index)
  }
}

let buttonKey = ContextKey<Button>("button")

/// A screen with delete buttons: each asks for confirmation with an alert. The screen keeps
/// no property for "the button the current alert is about": the alert carries it.
final class ListScreen {
  private(set) var items = ["Ada", "Grace", "Linus"]
  private(set) var shownAlerts: [Alert] = []

  func deleteTapped(_ sender: Button) {
    let alert = Alert(message: "Delete \(sender.title)?")
    alert.delegate = self
    alert.contextInfo[buttonKey] = sender
    shownAlerts.append(alert)
  }

  func alert(_ alert: Alert, clickedButtonAt index: Int) {
    defer { shownAlerts.removeAll { $0 === alert } }
    guard index == 1, let button = alert.contextInfo[buttonKey] else { return }
    items.removeAll { $0 == button.title }
  }
}

/// A row of a table view.
final class Row: NSObject {
  let title: String

  init(title: String) {
    self.title = title
  }
}

let expandedKey = DefaultedContextKey<Bool>("expanded", default: false)

extension Row {
  /// Whether the row shows its details: a stored property added from outside the class.
  var isExpanded: Bool {
    get { contextInfo[expandedKey] }
    set { contextInfo[expandedKey] = newValue }
  }
}

/// A network connection whose callbacks may arrive on any thread.
final class Connection: ContextCarrying, Sendable {
  let id: UInt8

  init(id: UInt8) {
    self.id = id
  }
}

let responseKey = ContextKey<ResponseBuffer>("response")
let responseDataKey = DefaultedContextKey<Data>("response data", default: Data())

@MainActor final class MainActorScreen: ContextCarrying {}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ContextCarryingTests {
  @Test func anAlertCarriesTheButtonItActsOn() {
    let screen = ListScreen()
    let grace = Button(title: "Grace")
    let linus = Button(title: "Linus")
    screen.deleteTapped(grace)
    screen.deleteTapped(linus)
    #expect(screen.shownAlerts.count == 2)
    screen.shownAlerts[1].click(buttonAt: 1)  // "Delete Linus?" → Delete
    screen.shownAlerts[0].click(buttonAt: 0)  // "Delete Grace?" → Cancel
    #expect(screen.items == ["Ada", "Grace"])
    #expect(screen.shownAlerts.isEmpty)
  }

  @Test func anAlertReleasesItsButtonWhenItGoes() {
    var weak = WeakReferences()
    do {
      let alert = Alert(message: "Delete?")
      let button = Button(title: "Ada")
      weak.watch(alert)
      weak.watch(button)
      alert.contextInfo[buttonKey] = button
    }
    waitOutSharedTableSweeps { weak.aliveCount <= 1 }  // seen once in 20 whole-suite runs
    #expect(weak.aliveCount <= 1)  // the alert is gone: the table never keeps it
    #if canImport(ObjectiveC)
      #expect(weak.aliveCount == 0)  // associated objects: released with the alert
    #else
      // The shared table releases the button when it reclaims the alert's entry.
      sweepSharedTable { weak.aliveCount == 0 }
      #expect(weak.aliveCount == 0)
    #endif
  }

  @Test func aChainOfObjectsEachCarryingTheNextIsFreed() {
    // Each object's default context holds the next object. On Apple platforms the chain goes
    // with its first object; on Linux the shared table reclaims the first entry within its
    // bound, and the rest of the chain with it.
    let size = 2_000
    let released = Counter()
    do {
      let links = (0..<size).map { _ in Link(released: released) }
      for index in 0..<size - 1 { links[index].contextInfo[nextLinkKey] = links[index + 1] }
    }
    sweepSharedTable { released.value == size }
    #expect(released.value == size)
  }

  @Test func rowsBackAnIsExpandedExtensionProperty() {
    let rows = (0..<6).map { Row(title: "row \($0)") }
    rows[1].isExpanded = true
    rows[4].isExpanded = true
    rows[4].isExpanded.toggle()
    rows[5].isExpanded.toggle()
    #expect(rows.map(\.isExpanded) == [false, true, false, false, false, true])
    #if !canImport(ObjectiveC)
      // Rows that were only read have no entry in the shared table.
      #expect(
        rows.map { ContextTable.shared.hasContext(for: $0) } == [
          false, true, false, false, true, true,
        ])
    #endif
  }

  @Test func concurrentConnectionsEachCollectTheirOwnResponse() {
    // Every chunk of every connection arrives on its own concurrent callback; each callback
    // finds its connection's buffer, the first one creating it.
    let connections = (1...8).map { Connection(id: $0) }
    let chunksPerConnection = 50
    DispatchQueue.concurrentPerform(iterations: connections.count * chunksPerConnection) {
      delivery in
      let connection = connections[delivery % connections.count]
      let chunk = Data(repeating: connection.id, count: 3)
      connection.contextInfo.value(for: responseKey, orInsert: ResponseBuffer()).append(chunk)
    }
    for connection in connections {
      let response = connection.contextInfo[responseKey]?.bytes ?? Data()
      #expect(response == Data(repeating: connection.id, count: 3 * chunksPerConnection))
    }
  }

  @Test func concurrentConnectionsWithSerialCallbacksAppendToData() {
    // Callbacks of one connection arrive in order on its own queue (as URLSession delegates
    // do); connections run at once. A read-modify-write through the subscript is then safe.
    let connections = (1...8).map { Connection(id: $0) }
    onThreadsBlocking(connections.count) { index in
      let connection = connections[index]
      for chunk in 0..<50 {
        let bytes = Data([connection.id, UInt8(chunk)])
        connection.contextInfo[responseDataKey] += bytes
      }
    }
    for connection in connections {
      let expected = Data((0..<50).flatMap { [connection.id, UInt8($0)] })
      #expect(connection.contextInfo[responseDataKey] == expected)
      connection.contextInfo.removeValue(for: responseDataKey)
      #expect(connection.contextInfo[responseDataKey] == Data())
    }
  }

  @Test func everyNSObjectAndAnyClassCarriesAContext() {
    let key = ContextKey<String>("note")
    let object = NSObject()
    object.contextInfo[key] = "plain NSObject"
    #expect(object.contextInfo[key] == "plain NSObject")
    let model = Model()
    model.contextInfo[key] = "pure Swift"
    #expect(model.contextInfo[key] == "pure Swift")
    #expect(NSObject().contextInfo[key] == nil)
    func viaProtocol(_ carrier: some ContextCarrying) -> String? { carrier.contextInfo[key] }
    #expect(viaProtocol(object) == "plain NSObject")
    #expect(viaProtocol(model) == "pure Swift")
  }

  @Test func anOwnerHeldContextIsTheOneEveryPathSees() {
    let owner = OwnerHeld()
    owner.contextInfo["name"] = "held"
    func viaProtocol(_ carrier: some ContextCarrying) -> ContextInfo { carrier.contextInfo }
    #expect(viaProtocol(owner)["name"] as? String == "held")
    #expect(!ContextTable.shared.hasContext(for: owner))
  }

  @Test @MainActor func mainActorClassesConformToo() {
    let screen = MainActorScreen()
    screen.contextInfo["title"] = "Settings"
    #expect(screen.contextInfo["title"] as? String == "Settings")
  }
}
