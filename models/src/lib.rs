//! The hardware of the simulated SoC, one module per part.
//!
//! * [`cpu`]: one in-order RV32IM hart (Zicsr, Zifencei, Zicbom), decoding with `raki` once per
//!   instruction word and keeping the result in a decoded-instruction cache.
//! * [`bus`]: the one interface through which the hart reaches memory and devices.
//! * [`dram`]: main memory.
//! * [`system_bus`]: the memory map that ties DRAM and the host-target interface together.
//!
//! Functional behaviour lives here; the run loop, the host side (semihosting, files, the
//! command line) and reports live in the `sim` crate.

pub mod bus;
pub mod cache;
pub mod cpu;
pub mod dram;
pub mod system_bus;
