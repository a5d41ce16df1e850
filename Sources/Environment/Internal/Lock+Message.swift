/// The message that stops the program when a thread takes a lock of this module that it already
/// holds. No closure of a user's runs under these locks, so it means a bug in TinyEnvironment.
let lockTakenAgainMessage =
  "TinyEnvironment: a lock was taken again by the thread that holds it (a bug in "
  + "TinyEnvironment: no user code runs under its locks)"
