extension Sequence where Element: Equatable {
  /// Returns whether every one of `candidates` occurs in the sequence.
  ///
  /// Candidates are a set, not a multiset: `[1].contains(allOf: [1, 1])` is `true`. An empty
  /// list of candidates is contained in every sequence, the empty one included. The sequence is
  /// read once and only until the last candidate is found, so it may be single-pass, or
  /// infinite when every candidate occurs in it. `candidates` is read once, up front.
  ///
  /// ```swift
  /// ["swift", "ios", "linux"].contains(allOf: ["linux", "swift"])   // true
  /// ["swift", "ios"].contains(allOf: ["swift", "android"])          // false
  /// [Int]().contains(allOf: [])                                     // true
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
  /// ["swift", "ios"].contains(anyOf: ["android", "ios"])            // true
  /// ["swift", "ios"].contains(anyOf: ["android"])                   // false
  /// ["swift"].contains(anyOf: [])                                   // false
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

  /// `contains(allOf:)` by comparing each element with the candidates still missing.
  @inlinable
  internal func containsAll(comparingWith candidates: [Element]) -> Bool {
    var missing = candidates
    if missing.isEmpty { return true }
    for element in self where missing.contains(element) {
      missing.removeAll { $0 == element }
      if missing.isEmpty { return true }
    }
    return false
  }

  /// `contains(anyOf:)` by comparing each element with every candidate.
  @inlinable
  internal func containsAny(comparingWith candidates: [Element]) -> Bool {
    // A loop, not `contains(where: candidates.contains)`: the method reference measured 9%
    // slower than the hand-written loop.
    if candidates.isEmpty { return false }
    for element in self where candidates.contains(element) {
      return true
    }
    return false
  }
}

extension Sequence where Element: Hashable {
  /// Returns whether every one of `candidates` occurs in the sequence; hashes when there are
  /// many candidates.
  ///
  /// Same results as the `Equatable` overload: candidates are a set, no candidates gives
  /// `true`, and the sequence is read once, until the last candidate is found. Up to 8
  /// candidates, comparing each element with them is faster than hashing it (measured for
  /// `Int`, `String` and a two-field struct), so that is what it does; beyond 8, it hashes.
  ///
  /// ```swift
  /// ["a", "b", "c"].contains(allOf: ["c", "a"])   // true
  /// ["a", "b", "c"].contains(allOf: ["c", "z"])   // false
  /// ```
  ///
  /// On a `Set`, the standard library's `isSuperset(of:)` gives the same answer without
  /// reading the whole set.
  ///
  /// - Parameter candidates: The elements to look for.
  /// - Returns: `true` when each candidate equals some element of the sequence.
  /// - Complexity: O(*n* + *m*) expected, where *n* is the length of the sequence and *m* the
  ///   number of candidates (O(*n* × *m*) for *m* ≤ 8).
  @inlinable
  public func contains<Candidates: Sequence<Element>>(allOf candidates: Candidates) -> Bool {
    let candidates = Array(candidates)
    if candidates.count <= CandidateSearch.comparisonLimit {
      return containsAll(comparingWith: candidates)
    }
    var missing = Set(candidates)
    for element in self {
      if missing.remove(element) != nil, missing.isEmpty { return true }
    }
    return false
  }

  /// Returns whether at least one of `candidates` occurs in the sequence; hashes when there are
  /// many candidates.
  ///
  /// Same results as the `Equatable` overload: no candidates gives `false`, and the sequence is
  /// read once, until the first match. Up to 8 candidates it compares each element with them;
  /// beyond 8, it hashes.
  ///
  /// ```swift
  /// ["a", "b", "c"].contains(anyOf: ["z", "b"])   // true
  /// ["a", "b", "c"].contains(anyOf: ["y", "z"])   // false
  /// ```
  ///
  /// On a `Set`, the standard library's `!isDisjoint(with:)` gives the same answer.
  ///
  /// - Parameter candidates: The elements to look for.
  /// - Returns: `true` when some element of the sequence equals some candidate.
  /// - Complexity: O(*n* + *m*) expected, where *n* is the length of the sequence and *m* the
  ///   number of candidates (O(*n* × *m*) for *m* ≤ 8).
  @inlinable
  public func contains<Candidates: Sequence<Element>>(anyOf candidates: Candidates) -> Bool {
    let candidates = Array(candidates)
    if candidates.count <= CandidateSearch.comparisonLimit {
      return containsAny(comparingWith: candidates)
    }
    let wanted = Set(candidates)
    for element in self where wanted.contains(element) {
      return true
    }
    return false
  }
}

/// Tuning shared by the `contains(allOf:)` and `contains(anyOf:)` overloads.
@usableFromInline
internal enum CandidateSearch {
  /// Up to this many candidates, comparing an element with each of them costs less than
  /// hashing it once: measured at 100,000 elements, linear search wins at 8 candidates for
  /// `Int` (5.9× faster), `String` (1.1×) and a struct of two `Double`s (7.8×), and hashing
  /// wins for `String` from about 12.
  @inlinable
  internal static var comparisonLimit: Int { 8 }
}
