//! The fast detector against the reference on random legal streams (see `check_equivalence`
//! for the exact claim). 10^4 cases by default; `PROPTEST_CASES=1000000 cargo test --release
//! -p mxpsim-detector --test equivalence` runs a million.

mod common;

use common::strategies::{case, cases};
use common::{check_equivalence, config, stream};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn fast_equals_reference((line_size, write_back, option, program, schedule) in case()) {
        let events = stream(&program, &schedule);
        let result = check_equivalence(config(line_size, write_back, option), &events);
        prop_assert!(result.is_ok(), "{}\nstream: {:#?}", result.unwrap_err(), events);
    }
}
