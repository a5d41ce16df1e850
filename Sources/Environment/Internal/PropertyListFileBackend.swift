import Foundation
import TinyInternals

/// The values of one user-defaults suite, in the property-list file where the platform's
/// `UserDefaults` keeps that suite: the live store where no system daemon keeps defaults
/// (Linux and other non-Apple platforms).
///
/// swift-corelibs-foundation's `UserDefaults` writes a suite's file only when `synchronize()`
/// is called (never on its own, not even at exit), writes it in place rather than atomically,
/// and writes XML, which drops the sign of `-0.0` and every fraction of a second of a date. So
/// this backend writes the file itself, in the binary property-list format (which keeps every
/// double and date exactly, and which `UserDefaults` reads), atomically, before each change
/// returns.
///
/// One backend exists per file, shared by every store made for that suite in the process.
final class PropertyListFileBackend: KeyValueBackend {
  /// The suite's file.
  let url: URL

  private struct State: Sendable {
    /// Whether the file has been read.
    var isLoaded = false
    /// The file's values, with the changes of this process applied.
    var values: [String: any Sendable] = [:]
    /// Entries of the file that no store can hand out (an integer beyond `Int`, a dictionary
    /// nested too deep), written back unchanged.
    var foreign = ForeignEntries()
    /// The file as this backend last read or wrote it, to notice another writer.
    var stamp: FileStamp?
    /// Why the last write failed, while a change is not in the file yet.
    var unwritten: KeyValueStoreError?
  }

  private let state = Locked(State())

  private init(url: URL) {
    self.url = url
  }

  /// The backend for the suite `suiteName` (`nil`: the process's standard defaults).
  static func shared(suiteName: String?) -> PropertyListFileBackend {
    let name = suiteName ?? standardDomainName
    let url = folder.appendingPathComponent("\(name).plist", isDirectory: false)
    let (backend, isFirst) = registry.withLock { backends in
      if let existing = backends[url.path] { return (existing, false) }
      let backend = PropertyListFileBackend(url: url)
      backends[url.path] = backend
      return (backend, backends.count == 1)
    }
    if isFirst {
      atexit { PropertyListFileBackend.flushAllAtExit() }
    }
    return backend
  }

  func set(_ value: any Sendable, forKey key: String) {
    change(key, to: value)
  }

  func value(forKey key: String) -> (any Sendable)? {
    state.withLock { state in
      loadIfNeeded(&state)
      return state.values[key]
    }
  }

  func removeValue(forKey key: String) {
    change(key, to: nil)
  }

  func flush() throws(KeyValueStoreError) {
    let failure = state.withLock { state -> KeyValueStoreError? in
      guard state.unwritten != nil else { return nil }
      write(&state)
      return state.unwritten
    }
    if let failure { throw failure }
  }

  /// Stores `value` under `key` (`nil`: removes it) and writes the file, before returning.
  ///
  /// The file is read again first when another program (or another process's store) wrote it
  /// since this backend last did, so that their changes to other keys survive, unless this
  /// backend holds a change that is not in the file yet, which is newer.
  private func change(_ key: String, to value: (any Sendable)?) {
    let (replaced, failure) = state.withLock { state -> ((any Sendable)?, String?) in
      loadIfNeeded(&state)
      if state.unwritten == nil, FileStamp(of: url) != state.stamp {
        reload(&state)
      }
      let replaced =
        if let value { state.values.updateValue(value, forKey: key) } else {
          state.values.removeValue(forKey: key)
        }
      let hadNoFailure = state.unwritten == nil
      if replaced != nil || value != nil || !hadNoFailure || state.foreign.entries[key] != nil {
        state.foreign.entries[key] = nil
        write(&state)
      }
      guard hadNoFailure, case .notWritten(_, let reason)? = state.unwritten else {
        return (replaced, nil)
      }
      return (replaced, reason)
    }
    _ = replaced  // released outside the lock
    if let failure {
      FileHandle.standardError.write(
        Data(
          """
          TinyEnvironment: KeyValueStore could not write \(url.path) (\(failure)); the change \
          stays in memory and is written with the next change, by flush(), or at exit

          """.utf8))
    }
  }

  private func loadIfNeeded(_ state: inout State) {
    if !state.isLoaded { reload(&state) }
  }

  /// Reads the file; a missing or unreadable file holds nothing.
  private func reload(_ state: inout State) {
    state.isLoaded = true
    state.stamp = FileStamp(of: url)
    state.values = [:]
    state.foreign = ForeignEntries()
    guard let data = try? Data(contentsOf: url),
      let file = try? PropertyListSerialization.propertyList(from: data, format: nil),
      let entries = file as? [String: Any]
    else { return }
    for (key, object) in entries {
      if let value = try? PropertyList.normalized(object) {
        state.values[key] = value
      } else {
        state.foreign.entries[key] = object
      }
    }
  }

  /// Writes the values to the file atomically (a new file renamed over the old one), or
  /// removes the file when there are none; records a failure in `state.unwritten`.
  private func write(_ state: inout State) {
    var entries = state.foreign.entries
    for (key, value) in state.values {
      entries[key] = PropertyList.object(value)
    }
    do {
      if entries.isEmpty {
        if FileManager.default.fileExists(atPath: url.path) {
          try FileManager.default.removeItem(at: url)
        }
      } else {
        let data = try PropertyListSerialization.data(
          fromPropertyList: entries, format: .binary, options: 0)
        try replaceFile(with: data)
      }
      state.unwritten = nil
      state.stamp = FileStamp(of: url)
    } catch {
      state.unwritten = .notWritten(path: url.path, reason: error.localizedDescription)
    }
  }

  /// Writes `data` to a new file, readable by its owner only, and renames it over the file.
  private func replaceFile(with data: Data) throws {
    let files = FileManager.default
    let folder = url.deletingLastPathComponent()
    try files.createDirectory(
      at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    // A short name: the suite's own file name may already be as long as a name can be.
    let temporary = folder.appendingPathComponent(
      ".tinyenvironment-\(UUID().uuidString).tmp", isDirectory: false)
    guard
      files.createFile(
        atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
    else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
    }
    guard rename(temporary.path, url.path) == 0 else {
      let reason = String(cString: strerror(errno))
      try? files.removeItem(at: temporary)
      throw CocoaError(
        .fileWriteUnknown,
        userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: reason])
    }
  }

  /// Every backend made in this process, by file path.
  private static let registry = Locked<[String: PropertyListFileBackend]>([:])

  /// Writes what could not be written before; runs when the process exits normally.
  private static func flushAllAtExit() {
    for backend in registry.withLock({ Array($0.values) }) {
      do {
        try backend.flush()
      } catch {
        FileHandle.standardError.write(
          Data("TinyEnvironment: at exit, KeyValueStore lost changes: \(error)\n".utf8))
      }
    }
  }

  /// The folder of the user's defaults: `$XDG_CONFIG_HOME`, else `~/.config`, as
  /// swift-corelibs-foundation's `UserDefaults` uses.
  static let folder: URL = {
    if let configured = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"],
      configured.hasPrefix("/")
    {
      return URL(fileURLWithPath: configured, isDirectory: true)
    }
    return FileManager.default.homeDirectoryForCurrentUser
      .appendingPathComponent(".config", isDirectory: true)
  }()

  /// The name of the standard defaults' file: the main bundle's identifier, else the process's
  /// name, as swift-corelibs-foundation's `UserDefaults` names it.
  static var standardDomainName: String {
    domainName(
      bundleIdentifier: Bundle.main.bundleIdentifier,
      processName: ProcessInfo.processInfo.processName)
  }

  /// `bundleIdentifier` unless it is `nil` or empty, else `processName`.
  static func domainName(bundleIdentifier: String?, processName: String) -> String {
    if let bundleIdentifier, !bundleIdentifier.isEmpty { return bundleIdentifier }
    return processName
  }
}

/// Entries of a property-list file kept as read.
struct ForeignEntries: @unchecked Sendable {
  // @unchecked: holds only immutable property-list objects that PropertyListSerialization made
  // (numbers, strings, dates, data, and arrays and dictionaries of them), never mutated.
  var entries: [String: Any] = [:]
}

/// What identifies one version of a file: a file renamed over it, or written in place, changes
/// one of these.
struct FileStamp: Equatable, Sendable {
  let inode: UInt64
  let size: UInt64
  let modified: Date

  /// The stamp of the file at `url`, or `nil` when there is none.
  init?(of url: URL) {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
      let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
      let size = (attributes[.size] as? NSNumber)?.uint64Value,
      let modified = attributes[.modificationDate] as? Date
    else { return nil }
    (self.inode, self.size, self.modified) = (inode, size, modified)
  }
}
