//! Fixed seeds for the property tests, so that a run is reproducible: the same cases on
//! every machine and every run. `PROPTEST_RNG_SEED=n` draws another sample (and a
//! failure message names the inputs, which replay with that seed).
#![allow(dead_code)]

use proptest::test_runner::{Config, RngSeed};

/// `config` with an RNG seed fixed by `name` (FNV-1a of it), unless the environment
/// sets `PROPTEST_RNG_SEED`.
pub fn seeded(mut config: Config, name: &str) -> Config {
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
        config.rng_seed = RngSeed::Fixed(h);
    }
    config
}
