//! Tengen's criterion benches (`board.rs`: the board core; `kernels.rs`: the network's
//! dense-layer and attention kernels); this library is empty, the crate exists for them.
