//! The hardware of the simulated SoC, one module per part.
//!
//! * [`cpu`]: one in-order RV32IMAC hart (Zicsr, Zifencei, Zicbom), decoding with `raki` once
//!   per instruction and running blocks of straight-line code from a decoded-block cache;
//!   machine interrupts; its timing model.
//! * [`bus`]: the one interface through which the hart reaches memory and devices.
//! * [`memory_system`]: the memory map behind that interface: the [`cache`] in front of
//!   [`dram`], the uncached alias, system-control registers, [`axi`] timing with a
//!   [`write_buffer`], and the [`events`] every access reports.
//! * [`devices`]: the CLINT and the UART, one room each.
//! * [`stop`]: stopping a run from outside, and the bound on simulated time.
//! * [`timeline`]: what a run's timeline shows, recorded on request.
//! * [`schedule`]: deliberate changes to the default timing, within the race model's
//!   freedom (`mxpsim provoke`).
//!
//! Functional behaviour lives here; the run loop, the host side (semihosting, files, the
//! command line) and reports live in the `sim` crate.

pub mod axi;
pub mod bus;
pub mod cache;
pub mod cpu;
pub mod devices;
pub mod dram;
pub mod events;
pub mod invalid;
pub mod memory_system;
pub mod mxp;
pub mod schedule;
pub mod stop;
pub mod timeline;
pub mod write_buffer;
