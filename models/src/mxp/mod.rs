//! The VectorBlox-MXP-style accelerator (`mxp-spec.md`): instruction port, command FIFO, DMA
//! and vector queues, scratchpad.
//!
//! * [`command`]: the 32-bit instruction-port encoding.
//! * [`regs`]: VL / ROWS / MATS and the 2-D/3-D increments.
//! * [`vector`]: what a vector instruction does (checked against `reference` by property tests).
//! * [`engine`]: the port, the FIFO and queues, interlocks, timing, DMA, events.
//! * [`config`]: parameters and addresses.
//! * [`row_set`]: the bytes of commands with many rows, in bounded memory.

pub mod command;
pub mod config;
pub mod engine;
pub mod regs;
pub mod row_set;
pub mod vector;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
