//! The CPU's timing model: a base of one cycle per instruction plus fixed penalties, and the
//! stalls the memory system reports for each data access (cache hits and misses, uncached
//! accesses, a full write buffer). Instruction fetch is ideal. A trap costs one cycle.
//!
//! Like r2vm's pipeline models, it only counts cycles: it never changes what an instruction
//! does.

use super::isa::{CostClass, Op};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CpuTiming {
    /// Extra cycles of a taken conditional branch (the pipeline refetches).
    pub taken_branch: u32,
    /// Extra cycles of `jal`/`jalr`.
    pub jump: u32,
    /// Extra cycles of `mul`, `mulh`, `mulhsu`, `mulhu`.
    pub mul: u32,
    /// Extra cycles of `div`, `divu`, `rem`, `remu` (an iterative divider).
    pub div: u32,
}

impl Default for CpuTiming {
    fn default() -> Self {
        CpuTiming { taken_branch: 2, jump: 2, mul: 2, div: 32 }
    }
}

/// Cycles of each operation before memory stalls, indexed by `Op as usize`.
pub(super) struct CostTable([u32; Op::COUNT]);

impl CostTable {
    pub fn new(t: &CpuTiming) -> Self {
        let mut costs = [1; Op::COUNT];
        for &op in Op::ALL {
            costs[op as usize] += match op.cost_class() {
                CostClass::Base => 0,
                CostClass::Jump => t.jump,
                CostClass::Mul => t.mul,
                CostClass::Div => t.div,
            };
        }
        CostTable(costs)
    }

    #[inline(always)]
    pub fn of(&self, op: Op) -> u64 {
        self.0[op as usize] as u64
    }
}
