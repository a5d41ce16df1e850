extension Sequence where Element: Equatable {
  /// Returns whether every one of `candidates` occurs in the sequence.
  ///
  /// Candidates are a set, not a multiset: `[1].contains(allOf: [1, 1])` is `true`. An empty
  /// list of candidates is contained in every sequence, the empty one included. The sequence is
  /// read once and only until the last candidate is found, so it may be single-pass, or
  /// infinite when every candidate occurs in it. `candidates` is read once, up front.
  ///
  /// ```swift
  /// ["swift", "ios", "linux"].contains(allOf: ["linux", "swift"])   // → true
  /// ["swift", "ios"].contains(allOf: ["swift", "android"])          // → false
  /// [Int]().contains(allOf: [])                                     // → true
  /// ```
  ///
  /// When the elements are `Hashable`, an overload with the same results that hashes many
  /// candidates is used instead.
  ///
  /// - Parameter candidates: The elements to look for.
  /// - Returns: `true` when each candidate equals some element of the sequence.
  /// - Complexity: O(*n* × *m*), where *n* is the length of the sequence and *m* the number of
  ///   candidates.
  @inlinable
  public func contains<Candidates: Sequence<Element>>(allOf candidates: Candidates) -> Bool {
    containsAll(comparingWith: Array(candidates))
  }

  /// Returns whether at least one of `candidates` occurs in the sequence.
  ///
  /// An empty list of candidates is never contained: the result is `false` without reading the
  /// sequence. The sequence is read once and only until the first match, so it may be
  /// single-pass, or infinite when some candidate occurs in it. `candidates` is read once, up
  /// front.
  ///
  /// ```swift
  /// ["swift", "ios"].contains(anyOf: ["android", "ios"])            // → true
  /// ["swift", "ios"].contains(anyOf: ["android"])                   // → false
  /// ["swift"].contains(anyOf: [])                                   // → false
  /// ```
  ///
  /// When the elements are `Hashable`, an overload with the same results that hashes many
  /// candidates is used instead.
  ///
  /// - Parameter candidates: The elements to look for.
  /// - Returns: `true` when some element of the sequence equals some candidate.
  /// - Complexity: O(*n* × *m*), where *n* is the length of the sequence and *m* the number of
  ///   candidates.
  @inlinable
  public func contains<Candidates: Sequence<Element>>(anyOf candidates: Candidates) -> Bool {
    containsAny(comparingWith: Array(candidates))
  }

  /// `contains(allOf:)` by comparing each element with the candidates not found yet.
  @inlinable
  internal func containsAll(comparingWith candidates: [Element]) -> Bool {
    // One candidate is the standard library's `contains(_:)`, whose loop is simpler than a
    // loop over a one-element array for each element.
    switch candidates.count {
    case 0: return true
    case 1: return contains(candidates[0])
    default: break
    }
    var missing = candidates
    for element in self where missing.contains(element) {
      missing.removeAll { $0 == element }
      if missing.isEmpty { return true }
    }
    return false
  }

  /// `contains(anyOf:)` by comparing each element with the candidates.
  @inlinable
  internal func containsAny(comparingWith candidates: [Element]) -> Bool {
    switch candidates.count {
    case 0: return false
    case 1: return contains(candidates[0])
    default: return contains(where: candidates.contains)
    }
  }
}

extension Sequence where Element: Hashable {
  /// Returns whether every one of `candidates` occurs in the sequence; hashes when there are
  /// many candidates.
  ///
  /// Same results as the `Equatable` overload: candidates are a set, no candidates gives
  /// `true`, and the sequence is read once, until the last candidate is found. Up to
  /// 24 candidates, it compares each element with them, which costs less than hashing the
  /// element; beyond that, it hashes each element once.
  ///
  /// ```swift
  /// ["a", "b", "c"].contains(allOf: ["c", "a"])   // → true
  /// ["a", "b", "c"].contains(allOf: ["c", "z"])   // → false
  /// ```
  ///
  /// On a `Set`, the standard library's `isSuperset(of:)` gives the same answer without
  /// reading the whole set.
  ///
  /// - Parameter candidates: The elements to look for.
  /// - Returns: `true` when each candidate equals some element of the sequence.
  /// - Complexity: O(*n* + *m*) expected, where *n* is the length of the sequence and *m* the
  ///   number of candidates (O(*n* × *m*) while it compares).
  @inlinable
  public func contains<Candidates: Sequence<Element>>(allOf candidates: Candidates) -> Bool {
    let candidates = Array(candidates)
    if candidates.count <= hashingThreshold { return containsAll(comparingWith: candidates) }
    var missing = Set(candidates)
    for element in self where missing.remove(element) != nil {
      if missing.isEmpty { return true }
    }
    return false
  }

  /// Returns whether at least one of `candidates` occurs in the sequence; hashes when there are
  /// many candidates.
  ///
  /// Same results as the `Equatable` overload: no candidates gives `false`, and the sequence is
  /// read once, until the first match. Up to 24 candidates, it compares each element with them;
  /// beyond that, it hashes each element once.
  ///
  /// ```swift
  /// ["a", "b", "c"].contains(anyOf: ["z", "b"])   // → true
  /// ["a", "b", "c"].contains(anyOf: ["y", "z"])   // → false
  /// ```
  ///
  /// On a `Set`, the standard library's `!isDisjoint(with:)` gives the same answer.
  ///
  /// - Parameter candidates: The elements to look for.
  /// - Returns: `true` when some element of the sequence equals some candidate.
  /// - Complexity: O(*n* + *m*) expected, where *n* is the length of the sequence and *m* the
  ///   number of candidates (O(*n* × *m*) while it compares).
  @inlinable
  public func contains<Candidates: Sequence<Element>>(anyOf candidates: Candidates) -> Bool {
    let candidates = Array(candidates)
    if candidates.count <= hashingThreshold { return containsAny(comparingWith: candidates) }
    let wanted = Set(candidates)
    return contains(where: wanted.contains)
  }

  /// Up to this many candidates, comparing an element with each of them costs less than
  /// hashing it once (for integers; see Docs/Performance.md for the measurements).
  @inlinable
  internal var hashingThreshold: Int { 24 }
}
