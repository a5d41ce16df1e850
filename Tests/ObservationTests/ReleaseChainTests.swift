import Testing
import TinyTestSupport

@testable import TinyObservation

/// A chain of user data, each link holding the next through one of the block's types, is
/// released one link after another, not nested: released on a thread with a 512 KB stack, a
/// chain of any length neither overflows the stack nor leaks a link.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ReleaseChainTests {
  /// How each link of a chain holds the next.
  enum Chain: String, CaseIterable, Sendable {
    /// An atom's value holds the next atom.
    case atomValue
    /// A derived atom's value holds the next derived atom.
    case derivedAtomValue
    /// A token's `onCancel` closure holds the next token.
    case watchTokenClosure
    /// A store's `makeValue` holds the next store.
    case atomStoreMakeValue
    /// A key stored in a store holds the next store.
    case atomStoreKey
    /// A main-queue watcher's handler holds the next atom and its watch.
    case mainQueueWatcher
    /// A watch with an owner: its handler holds the next atom.
    case ownedWatch
    /// A group's handler holds the next group.
    case groupHandler
    /// An active group's source, an atom, holds the next group in its value.
    case activeGroupSource
  }

  @Test(arguments: Chain.allCases)
  func aChainIsReleasedOneLinkAfterAnotherOnASmallStack(_ chain: Chain) async {
    let links = stressVolume(full: 100_000, quick: 5_000)
    let ends: ChainEnds
    switch chain {
    case .groupHandler, .activeGroupSource:
      ends = await Self.groupChain(links, isActive: chain == .activeGroupSource)
    default:
      ends = Self.chain(chain, links)
    }
    #expect(ends.far != nil)
    await onSmallStack { ends.releaseHead() }.opened()
    #expect(ends.far == nil)  // every link was released
  }

  /// Makes a chain of `links` links of `chain`, which is not a group chain.
  static func chain(_ chain: Chain, _ links: Int) -> ChainEnds {
    switch chain {
    case .atomValue:
      let end = Atom<AtomLink?>(nil)
      var head = end
      for _ in 0..<links { head = Atom(AtomLink(head)) }
      return ChainEnds(head: head, far: end)
    case .derivedAtomValue:
      let end = DerivedAtom<DerivedLink?> { nil }
      var head = end
      for _ in 0..<links {
        let made = Later<DerivedLink>()  // only the derived value holds the link, once made
        made.value = DerivedLink(head)
        head = DerivedAtom { made.value }
        made.value = nil
      }
      return ChainEnds(head: head, far: end)
    case .watchTokenClosure:
      let end = WatchToken {}
      var head = end
      for _ in 0..<links {
        let next = head
        head = WatchToken { _ = next }
      }
      return ChainEnds(head: head, far: end)
    case .atomStoreMakeValue:
      let end = AtomStore<Int, Int> { $0 }
      var head = end
      for _ in 0..<links {
        let next = head
        head = AtomStore { key in withExtendedLifetime(next) { key } }
      }
      return ChainEnds(head: head, far: end)
    case .atomStoreKey:
      let end = AtomStore<StoreKey, Int> { _ in 0 }
      var head = end
      for _ in 0..<links {
        let store = AtomStore<StoreKey, Int> { _ in 0 }
        _ = store.atom(for: StoreKey(head))  // the atom goes, its key's entry stays
        head = store
      }
      return ChainEnds(head: head, far: end)
    case .mainQueueWatcher, .ownedWatch:
      let owner = Owner()
      let end = Atom(0)
      var head: (atom: Atom<Int>, token: WatchToken?) = (end, nil)
      for _ in 0..<links {
        let next = head
        let atom = Atom(0)
        if chain == .ownedWatch {
          atom.watch(owner: owner) { _, _ in _ = next }
          head = (atom, nil)
        } else {
          head = (atom, atom.watchOnMain { _ in _ = next })
        }
      }
      return ChainEnds(head: (head, owner), far: end)
    case .groupHandler, .activeGroupSource:
      preconditionFailure("a group chain is made on the main actor")
    }
  }

  /// Makes a chain of `links` groups: each one's handler holds the next group, or, when
  /// `isActive`, each one's source does, and the group is begun.
  @MainActor
  static func groupChain(_ links: Int, isActive: Bool) -> ChainEnds {
    let end = ObservationGroup()
    var head = end
    for _ in 0..<links {
      let next = head
      let group = ObservationGroup()
      if isActive {
        group.observe(Atom<ObservationGroup?>(next)) { _ in }
        group.begin()
      } else {
        group.observe(Atom(0)) { _ in _ = next }
      }
      head = group
    }
    return ChainEnds(head: head, far: end)
  }
}

/// A link of a chain of atoms held through their values.
final class AtomLink: Sendable {
  let next: Atom<AtomLink?>

  init(_ next: Atom<AtomLink?>) {
    self.next = next
  }
}

/// A link of a chain of derived atoms held through their values.
final class DerivedLink: Sendable {
  let next: DerivedAtom<DerivedLink?>

  init(_ next: DerivedAtom<DerivedLink?>) {
    self.next = next
  }
}

/// A store key that holds the next store of a chain; keys are equal when they are the same
/// object.
final class StoreKey: Hashable, Sendable {
  let next: AtomStore<StoreKey, Int>

  init(_ next: AtomStore<StoreKey, Int>) {
    self.next = next
  }

  static func == (lhs: StoreKey, rhs: StoreKey) -> Bool {
    lhs === rhs
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}

/// The two ends of a chain: the head, which holds the rest and is handed to the thread that
/// releases it, and a weak reference to the far end, which is gone once every link is.
final class ChainEnds: @unchecked Sendable {
  // @unchecked: both are set before the releasing thread starts; `head` is then written only by
  // that thread, and `far` read after it finished.
  private var head: Any?
  weak var far: AnyObject?

  init(head: Any, far: AnyObject) {
    self.head = head
    self.far = far
  }

  /// Releases the head, and with it the whole chain, on the calling thread.
  func releaseHead() {
    head = nil
  }
}
