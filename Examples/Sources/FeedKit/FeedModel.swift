import TinyEnvironment
import TinyObservation
import TinyScheduling
import TinySequence
import TinyWaiting

/// What the feed screen shows above the list.
public struct FeedSummary: Sendable, Equatable {
  /// How many items are unread.
  public var unreadCount: Int
  /// How long the unread items take to read, in minutes.
  public var unreadMinutes: Int
  /// The title of the longest unread item, if any is unread.
  public var longestUnread: String?

  /// Creates a summary.
  public init(unreadCount: Int, unreadMinutes: Int, longestUnread: String?) {
    self.unreadCount = unreadCount
    self.unreadMinutes = unreadMinutes
    self.longestUnread = longestUnread
  }
}

/// The feed screen's model: the items, their summary, search, refreshing and marking as read.
///
/// It reads everything from outside through ``Current``: the API (`Current.feedAPI`) and the
/// clock that its timeout, search delay and refreshes run on (`Current.clock`). Create it in
/// the world it should use: in a test, inside `withWorld(.mock)` after setting the clock.
public final class FeedModel: Sendable {
  /// The feed's items, as the server last sent them, with the user's pending changes on top.
  public let items = Atom<[FeedItem]>([])
  /// The unread count and reading time, kept up to date with ``items``.
  public let summary: DerivedAtom<FeedSummary>
  /// The items that match the last search.
  public let results = Atom<[FeedItem]>([])

  /// How many refreshes in a row have failed: a stored property, since the model is the app's own
  /// class (TinyContext is for objects the app does not own).
  private let failures = Atom(0)
  private let searchDebouncer: Debouncer
  private let refreshLimiter: RateLimiter
  private let refresher: ClockPeriodicTaskLauncher

  /// Creates a model with an empty feed.
  ///
  /// - Parameters:
  ///   - searchDelay: How long typing must pause before a search runs.
  ///   - minimumRefreshInterval: The least time between two refreshes that ``requestRefresh()``
  ///     or the periodic refresh starts.
  public init(
    searchDelay: Duration = .milliseconds(300),
    minimumRefreshInterval: Duration = .seconds(5)
  ) {
    summary = DerivedAtom(items) { items in
      let unread = items.filter { !$0.isRead }
      return FeedSummary(
        unreadCount: unread.count, unreadMinutes: unread.sum(of: \.minutes),
        longestUnread: unread.max(of: \.minutes)?.title)
    }
    searchDebouncer = Debouncer(interval: searchDelay, clock: Current.clock)
    refreshLimiter = RateLimiter(interval: minimumRefreshInterval, clock: Current.clock)
    refresher = ClockPeriodicTaskLauncher(clock: Current.clock)
  }

  /// How many refreshes started by ``requestRefresh()`` have failed in a row.
  public var refreshFailures: Int {
    failures.value
  }

  /// Fetches the feed and shows it; gives up with `TimeoutError` after 5 seconds.
  public func refresh() async throws {
    let api = Current.feedAPI
    let feed = try await withTimeout(.seconds(5), clock: Current.clock) {
      try await api.fetchFeed()
    }
    items.set(feed)
  }

  /// Refreshes now, or at most once per minimum refresh interval when asked more often; two
  /// refreshes never run at once. A failure is counted in ``refreshFailures``.
  public func requestRefresh() {
    refreshLimiter.execute { [weak self] in
      guard let self else { return }
      do {
        try await refresh()
        failures.set(0)
      } catch {
        failures.update { $0 += 1 }
      }
    }
  }

  /// Refreshes every `interval` until ``stopRefreshing()``.
  ///
  /// Each tick goes through the same rate limiter as ``requestRefresh()``, so a periodic refresh
  /// and a "refresh now" never run at once, and lasts until that refresh has ended: a tick that
  /// falls due meanwhile comes right after it, once for all the ticks it missed.
  public func startRefreshing(every interval: Duration) {
    refresher.every(interval) { [weak self] in
      guard let self else { return }
      requestRefresh()
      await refreshLimiter.waitUntilIdle()
    }
    refresher.start()
  }

  /// Stops the periodic refresh.
  public func stopRefreshing() {
    refresher.stop()
  }

  /// Returns once no refresh or search is running or due to run now; refreshes and searches
  /// that wait for a later tick do not count.
  ///
  /// ``requestRefresh()`` starts a refresh at once, in a task of its own: a test awaits this
  /// before it checks the refresh or moves the clock on.
  public func waitUntilIdle() async {
    await refreshLimiter.waitUntilIdle()
    await searchDebouncer.waitUntilIdle()
  }

  /// Searches the items for every word of `query` once the typing pauses.
  public func search(_ query: String) {
    let words = query.lowercased().split(separator: " ")
    searchDebouncer.execute { [items, results] in
      results.set(
        items.value.filter { item in
          item.title.lowercased().split(separator: " ").contains(allOf: words)
        })
    }
  }

  /// Shows the item as read at once, then tells the server; if the server fails, the item is
  /// unread again and the error is thrown.
  public func markRead(_ id: FeedItem.ID) async throws {
    let api = Current.feedAPI
    try await items.update(optimistically: { items in
      for index in items.indices where items[index].id == id {
        items[index].isRead = true
      }
    }) { _ in
      try await api.markRead(id)
    }
  }
}
