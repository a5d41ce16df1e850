import Testing
import TinyContext
import TinyTestSupport

/// A value too large for an existential's inline buffer.
struct Big: Sendable, Equatable {
  var a = 1, b = 2, c = 3, d = 4
}

struct Boom: Error, Equatable {}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ContextInfoTests {
  /// Rows: a value stored first, what is then assigned (`.some(nil)` is `= nil`), the read
  /// afterwards, and whether the context is empty afterwards.
  typealias SubscriptRow = (stored: Int?, assign: Int??, read: Int?, empty: Bool)
  static let subscriptTable: [SubscriptRow] = [
    (nil, .none, nil, true),
    (1, .none, 1, false),
    (1, .some(nil), nil, true),  // = nil removes
    (nil, .some(nil), nil, true),  // removing nothing changes nothing
    (1, .some(2), 2, false),  // replacing
  ]

  @Test(arguments: ContextKind.allCases)
  func typedSubscript(kind: ContextKind) {
    for row in Self.subscriptTable {
      let (info, keepAlive) = kind.make()
      let key = ContextKey<Int>("k")
      if let stored = row.stored { info[key] = stored }
      if let assign = row.assign { info[key] = assign }
      #expect(info[key] == row.read, "\(row)")
      #expect(info.isEmpty == row.empty, "\(row)")
      withExtendedLifetime(keepAlive) {}
    }
  }

  /// Rows: a value stored first, what is then assigned (`nil`: nothing), whether it is then
  /// removed, the read afterwards (a key whose default is 5), and whether the context is empty.
  typealias DefaultedRow = (stored: Int?, assign: Int?, remove: Bool, read: Int, empty: Bool)
  static let defaultedTable: [DefaultedRow] = [
    (nil, nil, false, 5, true),  // the default, without storing it
    (1, nil, false, 1, false),  // a stored value wins over the default
    (1, nil, true, 5, true),  // after removal, the default again
    (nil, nil, true, 5, true),  // removing nothing changes nothing
    (nil, 5, false, 5, false),  // storing the default's value stores it
    (1, 2, false, 2, false),  // replacing
  ]

  @Test(arguments: ContextKind.allCases)
  func defaultedSubscript(kind: ContextKind) {
    for row in Self.defaultedTable {
      let (info, keepAlive) = kind.make()
      let key = DefaultedContextKey<Int>("k", default: 5)
      if let stored = row.stored { info[key] = stored }
      if let assign = row.assign { info[key] = assign }
      if row.remove { #expect(info.removeValue(for: key) == row.stored, "\(row)") }
      let read: Int = info[key]  // not optional
      #expect(read == row.read, "\(row)")
      #expect(info.isEmpty == row.empty, "\(row)")
      withExtendedLifetime(keepAlive) {}
    }
  }

  @Test(arguments: ContextKind.allCases)
  func defaultedKeysReadWriteInPlace(kind: ContextKind) {
    let (info, keepAlive) = kind.make()
    let failures = DefaultedContextKey<Int>("failures", default: 0)
    let expanded = DefaultedContextKey<Bool>("expanded", default: false)
    info[failures] += 1
    info[failures] += 1
    info[expanded].toggle()
    #expect(info[failures] == 2)
    #expect(info[expanded])
    #expect(info.removeValue(for: failures) == 2)
    #expect(info[failures] == 0)
    let maybe = DefaultedContextKey<Int?>("maybe", default: 3)
    info[maybe] = nil  // stores nil: a defaulted key's assignment always stores
    #expect(info[maybe] == nil)
    #expect(info.removeValue(for: maybe) == .some(nil))
    #expect(info[maybe] == 3)
    withExtendedLifetime(keepAlive) {}
  }

  /// Rows: a value stored first, the value offered, the result, and how many times the value
  /// was made.
  typealias GetOrInsertRow = (stored: Int?, offered: Int, result: Int, made: Int)
  static let getOrInsertTable: [GetOrInsertRow] = [
    (nil, 3, 3, 1),
    (1, 3, 1, 0),  // stored: returned, nothing made
  ]

  @Test(arguments: ContextKind.allCases)
  func valueForOrInsert(kind: ContextKind) {
    for row in Self.getOrInsertTable {
      let (info, keepAlive) = kind.make()
      let key = ContextKey<Int>("k")
      if let stored = row.stored { info[key] = stored }
      var made = 0
      func make() -> Int {
        made += 1
        return row.offered
      }
      #expect(info.value(for: key, orInsert: make()) == row.result, "\(row)")
      #expect(made == row.made, "\(row)")
      #expect(info[key] == row.result, "\(row): the result is what is stored")
      withExtendedLifetime(keepAlive) {}
    }
  }

  @Test(arguments: ContextKind.allCases)
  func aThrowingMakeValueStoresNothing(kind: ContextKind) {
    let (info, keepAlive) = kind.make()
    let key = ContextKey<Int>("k")
    func failing() throws -> Int { throw Boom() }
    #expect(throws: Boom()) {
      _ = try info.value(for: key, orInsert: try failing())
    }
    #expect(info[key] == nil)
    #expect(info.isEmpty)
    withExtendedLifetime(keepAlive) {}
  }

  @Test(arguments: ContextKind.allCases)
  func aValueStoredByMakeValueItselfWins(kind: ContextKind) {
    let (info, keepAlive) = kind.make()
    let key = ContextKey<Int>("k")
    // `makeValue` runs outside the lock, so it may use the context, even the same key.
    func make() -> Int {
      info[key] = 1
      return 2
    }
    #expect(info.value(for: key, orInsert: make()) == 1)
    #expect(info[key] == 1)
    withExtendedLifetime(keepAlive) {}
  }

  @Test(arguments: ContextKind.allCases)
  func removeValueReturnsTheStoredValueNeverTheDefault(kind: ContextKind) {
    let (info, keepAlive) = kind.make()
    let key = DefaultedContextKey<Int>("k", default: 5)
    #expect(info.removeValue(for: key) == nil)
    info[key] = 1
    #expect(info.removeValue(for: key) == 1)
    #expect(info.removeValue(for: key) == nil)
    #expect(info[key] == 5)
    let plain = ContextKey<Int>("plain")
    info[plain] = 2
    #expect(info.removeValue(for: plain) == 2)
    #expect(info.removeValue(for: plain) == nil)
    withExtendedLifetime(keepAlive) {}
  }

  @Test(arguments: ContextKind.allCases)
  func namedValues(kind: ContextKind) {
    let (info, keepAlive) = kind.make()
    #expect(info["legacy"] == nil)
    info["legacy"] = 42
    info[""] = "empty name"
    #expect(info["legacy"] as? Int == 42)
    #expect(info[""] as? String == "empty name")
    info["legacy"] = "replaced"
    #expect(info["legacy"] as? String == "replaced")
    let nothing: Int? = nil
    info["legacy"] = nothing  // an optional that is nil removes
    #expect(info["legacy"] == nil)
    #expect(info.removeValue(for: "") as? String == "empty name")
    #expect(info.removeValue(for: "") == nil)
    #expect(info.isEmpty)
    withExtendedLifetime(keepAlive) {}
  }

  @Test(arguments: ContextKind.allCases)
  func namedAndTypedValuesNeverMix(kind: ContextKind) {
    let (info, keepAlive) = kind.make()
    let key = ContextKey<Int>("same")
    info[key] = 1
    info["same"] = 2
    #expect(info[key] == 1)
    #expect(info["same"] as? Int == 2)
    info["same"] = nil
    #expect(info[key] == 1)
    withExtendedLifetime(keepAlive) {}
  }

  @Test(arguments: ContextKind.allCases)
  func removeAllRemovesTypedAndNamedValues(kind: ContextKind) {
    let (info, keepAlive) = kind.make()
    info.removeAll()  // nothing to remove
    #expect(info.isEmpty)
    let plain = ContextKey<String>("plain")
    let withDefault = DefaultedContextKey<Bool>("flag", default: true)
    info[plain] = "x"
    info[withDefault] = false
    info["legacy"] = 1
    #expect(!info.isEmpty)
    info.removeAll()
    #expect(info.isEmpty)
    #expect(info[plain] == nil)
    #expect(info[withDefault])
    #expect(info["legacy"] == nil)
    info[plain] = "again"  // still usable
    #expect(info[plain] == "again")
    withExtendedLifetime(keepAlive) {}
  }

  @Test func optionalValuesStoreNilWithSomeNil() {
    let info = ContextInfo()
    let key = ContextKey<Int?>("maybe")
    #expect(info[key] == .none)
    info[key] = .some(nil)  // stores nil
    #expect(info[key] == .some(nil))
    #expect(!info.isEmpty)
    info[key] = nil  // removes
    #expect(info[key] == .none)
    #expect(info.isEmpty)
    let withDefault = DefaultedContextKey<Int?>("maybe", default: nil)
    #expect(info[withDefault] == nil)
    #expect(info.isEmpty)
  }

  @Test func existentialAndLargeValuesKeepTheirTypes() {
    let info = ContextInfo()
    let any = ContextKey<any Sendable>("any")
    info[any] = "text"
    #expect(info[any] as? String == "text")
    info[any] = 3
    #expect(info[any] as? Int == 3)
    let error = ContextKey<any Error>("error")
    info[error] = Boom()
    #expect(info[error] as? Boom == Boom())
    let big = ContextKey<Big>("big")
    info[big] = Big(a: 10)
    #expect(info[big] == Big(a: 10))
    let list = ContextKey<[Int]>("list")
    info[list] = [1, 2, 3]
    #expect(info.value(for: list, orInsert: []) == [1, 2, 3])
    #expect(info.removeValue(for: big) == Big(a: 10))
  }

  @Test func manyKeysInOneContext() {
    // Past 16 typed values a context also keeps a dictionary of positions.
    let info = ContextInfo()
    let keys = (0..<40).map { ContextKey<Int>("key \($0)") }
    for (index, key) in keys.enumerated() { info[key] = index }
    for (index, key) in keys.enumerated() { #expect(info[key] == index) }
    for key in keys[5..<30] { info[key] = nil }
    for (index, key) in keys.enumerated() {
      #expect(info[key] == ((5..<30).contains(index) ? nil : index))
    }
    for (index, key) in keys.enumerated().reversed() { info[key] = index * 2 }
    for (index, key) in keys.enumerated() { #expect(info[key] == index * 2) }
    for key in keys.shuffled() { info.removeValue(for: key) }
    #expect(info.isEmpty)
  }

  @Test func theFirstValueStoredIsReplacedAndRemovedLikeTheOthers() {
    // A context keeps its first typed value apart from the others: replacing or removing it
    // leaves them as they are, and the next value stored takes its place.
    let info = ContextInfo()
    let (first, second, third, fourth) = (
      ContextKey<Int>("first"), ContextKey<Int>("second"), ContextKey<Int>("third"),
      ContextKey<Int>("fourth")
    )
    info[first] = 1
    info[second] = 2
    info[third] = 3
    info[first] = 10
    #expect([info[first], info[second], info[third]] == [10, 2, 3])
    #expect(info.removeValue(for: first) == 10)
    #expect([info[first], info[second], info[third]] == [nil, 2, 3])
    info[fourth] = 4
    info[first] = 5
    #expect([info[first], info[second], info[third], info[fourth]] == [5, 2, 3, 4])
    for key in [second, third, fourth] { info[key] = nil }
    #expect(!info.isEmpty)
    info[first] = nil
    #expect(info.isEmpty)
  }

  @Test func copiesShareTheContext() {
    let info = ContextInfo()
    let copy = info
    let key = ContextKey<Int>("k")
    copy[key] = 1
    #expect(info[key] == 1)
    #expect(ContextInfo()[key] == nil)  // each ContextInfo() is a new context
  }

  @Test(arguments: ContextKind.allCases)
  func replacedAndRemovedValuesAreReleasedOutsideTheLock(kind: ContextKind) {
    // Each value's deinit uses the same context; under the lock that would deadlock.
    let (info, keepAlive) = kind.make()
    let releases = ContextKey<Int>("releases")
    let value = ContextKey<ReentrantValue>("value")
    info[value] = ReentrantValue(context: info, key: releases)
    info[value] = ReentrantValue(context: info, key: releases)  // replaces
    #expect(info[releases] == 1)
    info[value] = nil  // removes
    #expect(info[releases] == 2)
    info[value] = ReentrantValue(context: info, key: releases)
    _ = info.removeValue(for: value)
    #expect(info[releases] == 3)
    info[value] = ReentrantValue(context: info, key: releases)
    info["named"] = ReentrantValue(context: info, key: releases)
    info["named"] = nil
    #expect(info[releases] == 4)
    info.removeAll()
    // removeAll released the last value after the lock; its deinit stored a fresh count.
    #expect(info[releases] == 1)
    withExtendedLifetime(keepAlive) {}
  }

  @Test func releasingALongChainOfOwnerHeldContextsRunsOnASmallStack() {
    // Each owner's context holds the next owner: releasing the first releases the next from
    // inside its context's release, and so on, as deep as the chain, unless the releases run
    // one after another.
    let links = stressVolume(full: 1_000_000, quick: 10_000)
    let released = Counter()
    let finished = onSmallStack {
      var head: OwnerHeldLink?
      for _ in 0..<links {
        let link = OwnerHeldLink(released: released)
        if let head { link.contextInfo[nextOwnerHeldLinkKey] = head }
        head = link
      }
      head = nil
    }
    finished.wait()
    #expect(released.value == links)
  }

  /// What a value's `deinit` does to the context that held it.
  enum Reentry: String, CaseIterable, Sendable {
    case read, write, remove, insert, removeAll
  }

  /// How a value leaves its context.
  enum Drop: String, CaseIterable, Sendable {
    case replaced, assignedNil, removeValue, removeAll, named, discardedByGetOrInsert
  }

  @Test(arguments: Drop.allCases, Reentry.allCases)
  func aReleasedValuesDeinitMayUseTheSameContext(drop: Drop, reentry: Reentry) {
    for kind in ContextKind.allCases {
      let (info, keepAlive) = kind.make()
      let counter = ContextKey<Int>("counter")
      let inserted = ContextKey<Int>("inserted")
      let value = ContextKey<OnDeinit>("value")
      let log = Recorder<String>()
      let deinits = Counter()
      info[counter] = 5
      let action: @Sendable () -> Void = {
        deinits.increment()
        switch reentry {
        case .read: log.record("\(info[counter].map(String.init) ?? "nil")")
        case .write: info[counter] = 6
        case .remove: info.removeValue(for: counter)
        case .insert: _ = info.value(for: inserted, orInsert: 7)
        case .removeAll: info.removeAll()
        }
      }
      switch drop {
      case .replaced:
        info[value] = OnDeinit(action)
        info[value] = OnDeinit {}
      case .assignedNil:
        info[value] = OnDeinit(action)
        info[value] = nil
      case .removeValue:
        info[value] = OnDeinit(action)
        _ = info.removeValue(for: value)
      case .removeAll:
        info[value] = OnDeinit(action)
        info.removeAll()
      case .named:
        info["value"] = OnDeinit(action)
        info["value"] = nil
      case .discardedByGetOrInsert:
        // The value made for the insertion loses to the one makeValue stored itself.
        _ = info.value(
          for: value,
          orInsert: {
            info[value] = OnDeinit {}
            return OnDeinit(action)
          }())
      }
      let label = "\(kind), \(drop), \(reentry)"
      #expect(deinits.value == 1, "\(label)")
      switch reentry {
      case .read: #expect(log.all == [drop == .removeAll ? "nil" : "5"], "\(label)")
      case .write: #expect(info[counter] == 6, "\(label)")
      case .remove: #expect(info[counter] == nil, "\(label)")
      case .insert: #expect(info[inserted] == 7, "\(label)")
      case .removeAll: #expect(info.isEmpty, "\(label)")
      }
      withExtendedLifetime(keepAlive) {}
    }
  }

  @Test(arguments: ContextKind.allCases)
  func aKeptContextInfoNeverKeepsItsObjectAlive(kind: ContextKind) {
    let key = ContextKey<Int>("k")
    var kept: [ContextInfo] = []
    weak var gone: AnyObject?
    do {
      let (info, keepAlive) = kind.make()
      gone = keepAlive[0]
      kept.append(info)  // before the first write: the view of an object without a context
      info[key] = 1
      kept.append(info)
      if case .table = kind, let table = keepAlive.last as? ContextTable {
        kept.append(table.contextInfo(for: keepAlive[0]))  // a view of the existing context
      }
      withExtendedLifetime(keepAlive) { #expect(gone != nil) }
    }
    if kind == .carried { waitOutSharedTableSweeps { gone == nil } }
    #expect(gone == nil)
    #expect(kept.allSatisfy { $0[key] == 1 })  // the views keep the values
  }

  @Test(arguments: ContextKind.allCases)
  func valuesAreReleasedWithTheirContext(kind: ContextKind) {
    var weak = WeakReferences()
    do {
      let (info, keepAlive) = kind.make()
      let key = ContextKey<Probe>("probe")
      let probe = Probe()
      weak.watch(probe)
      info[key] = probe
      #expect(info[key] === probe)
      withExtendedLifetime(keepAlive) {}
    }
    // Owner-held and private-table contexts go with their owner or table at once; the
    // default context on Linux goes when the shared table reclaims it (ContextTableTests).
    if kind != .carried {
      #expect(weak.aliveCount == 0)
    }
  }
}
