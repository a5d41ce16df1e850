/// The message that stops the program when a thread takes a lock of this module that it already
/// holds: user code that runs under an atom's lock used that atom.
let lockTakenAgainMessage =
  "TinyObservation: an atom was used from inside a closure that runs under its lock — "
  + "the body of Atom.update(_:) or the local change of Atom.update(optimistically:commit:)"
