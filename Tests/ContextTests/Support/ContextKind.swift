import TinyContext
import TinyTestSupport

/// The three places a context can live, so each edge case runs against all of them.
enum ContextKind: CaseIterable, CustomStringConvertible, Sendable {
  /// `let contextInfo = ContextInfo()` in the owner.
  case ownerHeld
  /// The default `contextInfo` of a pure Swift class (the shared side table on Linux,
  /// associated objects on Apple platforms).
  case carried
  /// A private `ContextTable`.
  case table

  var description: String {
    switch self {
    case .ownerHeld: "owner-held"
    case .carried: "default contextInfo"
    case .table: "private ContextTable"
    }
  }

  /// A fresh, empty context, and what keeps it alive (its owner, and the table).
  func make() -> (info: ContextInfo, keepAlive: [AnyObject]) {
    switch self {
    case .ownerHeld:
      let owner = OwnerHeld()
      return (owner.contextInfo, [owner])
    case .carried:
      let owner = Model()
      return (owner.contextInfo, [owner])
    case .table:
      let owner = Model()
      let table = ContextTable()
      return (table.contextInfo(for: owner), [owner, table])
    }
  }
}
