import Testing
import TinyContext
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ContextKeyTests {
  @Test func keysWithTheSameNameNeverCollide() {
    let first = ContextKey<Int>("count")
    let second = ContextKey<Int>("count")
    #expect(first !== second)
    let info = ContextInfo()
    info[first] = 1
    info[second] = 2
    #expect(info[first] == 1)
    #expect(info[second] == 2)
    info[first] = nil
    #expect(info[first] == nil)
    #expect(info[second] == 2)
  }

  @Test(arguments: ContextKind.allCases)
  func keysStayApartWhateverTheirNamesAndTypes(kind: ContextKind) {
    // The same name, the same type name in two scopes, the same type, a key with a default,
    // and a named value with the keys' name: six different slots.
    let (info, keepAlive) = kind.make()
    let first = ContextKey<FirstScope.Item>("item")
    let second = ContextKey<SecondScope.Item>("item")
    let again = ContextKey<FirstScope.Item>("item")
    let number = DefaultedContextKey<Int>("item", default: 0)
    let plainNumber = ContextKey<Int>("item")
    info[first] = .init(id: 1)
    info[second] = .init(id: 2)
    info[again] = .init(id: 3)
    info[number] = 4
    info["item"] = 5
    info[plainNumber] = 6
    #expect(info[first] == .init(id: 1))
    #expect(info[second] == .init(id: 2))
    #expect(info[again] == .init(id: 3))
    #expect(info[number] == 4)
    #expect(info["item"] as? Int == 5)
    #expect(info[plainNumber] == 6)
    info[first] = nil
    info["item"] = nil
    #expect(info[first] == nil)
    #expect(info[second] == .init(id: 2))
    #expect(info[again] == .init(id: 3))
    #expect(info[number] == 4)
    #expect(info.removeValue(for: number) == 4)
    #expect(info[number] == 0)
    #expect(info[second] == .init(id: 2))
    #expect(info[plainNumber] == 6)
    withExtendedLifetime(keepAlive) {}
  }

  @Test(arguments: ["", "expanded", "a name with spaces", "ü∑"])
  func anyNameIsKeptForDebuggingOnly(name: String) {
    let key = ContextKey<Bool>(name)
    #expect(key.name == name)
    #expect(key.description == "ContextKey<Bool>(\"\(name)\")")
    let info = ContextInfo()
    info[key] = true
    #expect(info[key] == true)
    #expect(info[name] == nil)  // the string subscript is a separate namespace
  }

  @Test func aDefaultIsReadWhereNothingIsStoredAndNeverStored() {
    let plain = ContextKey<Bool>("selected")
    let withDefault = DefaultedContextKey<Bool>("expanded", default: true)
    #expect(withDefault.defaultValue)
    let info = ContextInfo()
    #expect(info[plain] == nil)
    let read: Bool = info[withDefault]  // a Bool, not a Bool?
    #expect(read)
    #expect(info.isEmpty)  // reading the default stored nothing
  }

  @Test func aKeyThatIsGoneLeavesOtherKeysAlone() {
    let info = ContextInfo()
    let kept = ContextKey<Int>("kept")
    info[kept] = 7
    do {
      let temporary = ContextKey<Int>("temporary")
      info[temporary] = 99
    }
    // A new key, possibly at the dead key's address, never sees the dead key's value.
    for _ in 0..<100 {
      let fresh = ContextKey<Int>("temporary")
      #expect(info[fresh] == nil)
    }
    #expect(info[kept] == 7)
  }

  @Test func describesItsValueType() {
    let map = ContextKey<[String: Int]>("map")
    #expect(map.description == "ContextKey<Dictionary<String, Int>>(\"map\")")
    #expect(ContextKey<Int?>("maybe").description == "ContextKey<Optional<Int>>(\"maybe\")")
    #expect(
      DefaultedContextKey<Int>("failures", default: 0).description
        == "DefaultedContextKey<Int>(\"failures\", default: 0)")
    #expect(DefaultedContextKey<Int>("failures", default: 0).name == "failures")
  }
}
