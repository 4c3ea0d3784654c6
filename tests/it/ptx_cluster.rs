//! Issue 43, item 5: thread-block clusters and distributed shared memory, from a real
//! compiler (`ptx/cluster/`, NVRTC 12.9 at compute_90a, `python3 ptx/cluster/generate.py`,
//! each file assembled by ptxas for sm_90a): a 2-CTA cluster (`__cluster_dims__(2, 1,
//! 1)`) in which each CTA reads its peer's shared tile through cooperative groups'
//! `map_shared_rank` (`mapa` + a generic load) between two `cluster.sync()`s, and twins
//! made by textual edits (the generator's `TWINS`): no second sync (the peer may exit
//! while its tile is read), no first sync (the read races with the peer's write), and one
//! thread per CTA waiting at the first barrier without arriving (it never completes).
//!
//! And `cute_ping*.py` (CuTe DSL 4.8.1 at sm_90a, `python3 ptx/cluster/generate_cute.py`):
//! two CTAs launched as a cluster, each arriving on its peer's mbarrier (`mapa` and a
//! remote `mbarrier.arrive.shared::cluster`) and waiting on its own, with twins: the
//! arrival missing (DEADLOCK on the barrier's phase 0), no cluster barrier between the
//! inits and the remote arrivals (RACE), the arrival sent to a rank outside the cluster.
//!
//! Expected verdicts come from the `.cu`/`.py` headers, whose reasons follow from each
//! edit; the values from the kernel's source: y[b, i] = x[b, i] + x[b ^ 1, i].

use crate::common::{cu_header, cu_names, lift_at_root as lift};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx/cluster")
}

const SUM: &str = "ptx/cluster/dsmem_sum.ptx";

/// The verdict word of `lift race`'s last line.
fn verdict(text: &str) -> String {
    let last = text.lines().last().unwrap_or("");
    ["SAFE", "RACE", "DEADLOCK", "OUT OF BOUNDS", "UNKNOWN"]
        .iter()
        .find(|w| last.starts_with(*w))
        .map_or(last.to_string(), |w| w.to_string())
}

#[test]
fn cluster_corpus_gets_its_race_verdicts_with_a_trail() {
    let names = cu_names(&dir());
    assert!(
        names.len() >= 4,
        "only {} kernels in ptx/cluster",
        names.len()
    );
    let mut failures = Vec::new();
    for name in &names {
        let want = cu_header(&dir(), name, "expect");
        let path = format!("ptx/cluster/{name}.ptx");
        let (code, text) = lift(&["race", &path]);
        let got = verdict(&text);
        println!("{name:28} expect {want:9} got {got}");
        if got != want {
            failures.push(format!("{name}: expected {want}, lift says {got}\n{text}"));
            continue;
        }
        let exit = if want == "SAFE" { 0 } else { 1 };
        if code != Some(exit) {
            failures.push(format!("{name}: exit {code:?}, expected {exit}\n{text}"));
        }
        // What each twin's trail must name: the tile, both CTAs, the barrier, the line.
        let needles: &[&str] = match name.as_str() {
            "dsmem_sum_peer_exits" => &[
                "exit of CTA",
                "of CTA (",
                "E4tile[",
                "neither a barrier.cluster.arrive/wait nor an mbarrier phase that CTA waited for orders that access",
                "dsmem_sum_peer_exits.cu:",
            ],
            "dsmem_sum_no_sync" => &[
                "data race on shared `_ZZ17dsmem_sum_no_syncE4tile[",
                "of CTA (",
                "in different CTAs of one cluster with neither a barrier.cluster.arrive/wait nor a cross-CTA mbarrier phase",
                "line ",
            ],
            "dsmem_sum_wait_without_arrive" => &[
                "cluster barrier phase 0 never completes",
                "thread (127, 0, 0) of CTA (0, 0, 0) wait at line",
                "for phase 0 without having arrived for it (missing)",
                "thread (127, 0, 0) of CTA (1, 0, 0) wait at line",
                "127 threads from (0, 0, 0) to (126, 0, 0) of CTA (1, 0, 0) arrived and wait at line",
            ],
            _ => &[],
        };
        for &needle in needles {
            if !text.contains(needle) {
                failures.push(format!(
                    "{name}: the report does not name `{needle}`\n{text}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The value of `# expect:` in a CuTe kernel's header.
fn py_expect(name: &str) -> String {
    let text = std::fs::read_to_string(dir().join(format!("{name}.py"))).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("# expect:").map(|e| e.trim().to_string()))
        .unwrap_or_else(|| panic!("{name}.py: no `# expect:`"))
}

/// Runs `lift race` on each CuTe kernel of `cases`: its verdict and exit code must be its
/// header's `# expect:`, and its report must name every needle (the trail).
fn race_cases_get_their_verdicts(cases: &[(&str, &[&str])]) {
    let mut failures = Vec::new();
    for (name, needles) in cases {
        let want = py_expect(name);
        let (code, text) = lift(&["race", &format!("ptx/cluster/{name}.ptx")]);
        let got = verdict(&text);
        println!("{name:36} expect {want:9} got {got}");
        let exit = if want == "SAFE" { 0 } else { 1 };
        if got != want || code != Some(exit) {
            failures.push(format!(
                "{name}: expected {want} (exit {exit}), lift says {got} ({code:?})\n{text}"
            ));
            continue;
        }
        for &needle in *needles {
            if !text.contains(needle) {
                failures.push(format!(
                    "{name}: the report does not name `{needle}`\n{text}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn cute_cluster_pings_get_their_verdicts_with_a_trail() {
    let cases: &[(&str, &[&str])] = &[
        ("cute_ping", &[]),
        (
            "cute_ping_missing_arrive",
            &[
                "mbarrier shared `__dynamic_shmem__0[0]`",
                "phase 0 (parity 0)",
                "1 of its 1 arrivals are missing",
                "line ",
            ],
        ),
        (
            "cute_ping_no_init_sync",
            &[
                "arrives on mbarrier shared `__dynamic_shmem__0[0]` (byte 0) of CTA (1, 0, 0)",
                "of CTA (1, 0, 0)",
                "before that CTA initialises it",
            ],
        ),
        (
            "cute_ping_rank_out_of_cluster",
            &[
                "mapa to CTA rank 2, but the cluster has 2 CTAs",
                "cute_ping_rank_out_of_cluster.ptx:43: mapa",
            ],
        ),
    ];
    race_cases_get_their_verdicts(cases);
    // The safe kernel computes y = 2 * x in both CTAs.
    let (code, text) = lift(&["check", "ptx/cluster/cute_ping.ptx", "--spec", "y = 2 * x"]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn dsmem_sum_meets_its_spec_and_not_a_wrong_one() {
    // B = 2: one cluster, each row plus the other row.
    let (code, text) = lift(&["check", SUM, "--spec", "y = x + torch.flip(x, [0])"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("VERIFIED"), "{text}");
    // Reading its own tile twice would give 2x: refuted.
    let (code, text) = lift(&["check", SUM, "--spec", "y = 2 * x"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
}

#[test]
fn dsmem_sum_lifts_to_a_formula_of_both_rows() {
    let (code, text) = lift(&["spec", SUM]);
    assert_eq!(code, Some(0), "{text}");
    // y[0, 5] is x[0, 5] + x[1, 5], y[1, 5] is x[1, 5] + x[0, 5].
    assert!(
        text.contains("x[0,5] + x[1,5]") || text.contains("x[1,5] + x[0,5]"),
        "{text}"
    );
}

#[test]
fn dsmem_sum_runs_two_clusters_and_one_named_cta_runs_its_whole_cluster() {
    let launch = std::fs::read_to_string(dir().join("dsmem_sum.launch.toml")).unwrap();
    let tmp = std::env::temp_dir().join(format!("lift_cluster_{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    // B = 4: clusters {0, 1} and {2, 3}; rows pair within each cluster.
    let (code, text) = lift(&[
        "check",
        SUM,
        "--size",
        "B=4",
        "--spec",
        "y = x + torch.flip(x.reshape(2, 2, 128), [1]).reshape(4, 128)",
    ]);
    assert_eq!(code, Some(0), "{text}");
    // cta = [3, 0, 0] runs CTAs 2 and 3 (the cluster of CTA 3) and nothing else.
    let l = tmp.join("cta3.launch.toml");
    std::fs::write(
        &l,
        launch.replace("sizes = { B = 2 }", "sizes = { B = 4 }\ncta = [3, 0, 0]"),
    )
    .unwrap();
    let (code, text) = lift(&["race", SUM, "--launch", l.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("SAFE"), "{text}");
    // A cluster that does not divide the grid, and one the kernel contradicts.
    for (cluster, needle) in [
        ("cluster = [4, 1, 1]", "does not divide the grid"),
        (
            "cluster = [1, 1, 1]",
            "contradicts the kernel's .reqnctapercluster",
        ),
    ] {
        let l = tmp.join("bad.launch.toml");
        std::fs::write(&l, launch.replace("cluster = [2, 1, 1]", cluster)).unwrap();
        let (code, text) = lift(&["race", SUM, "--launch", l.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{cluster}: {text}");
        assert!(text.contains(needle), "{cluster}: {text}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `cute_multicast*.py` (CuTe DSL 4.8.1 at sm_90a): a two-stage pipeline over four tiles
/// in a cluster of two CTAs, CTA 0 multicasting each tile into both (`cp.async.bulk ...
/// .multicast::cluster`, mask 0b11), each consumer releasing the stage on both CTAs'
/// "empty" barriers with `mbarrier.arrive.release.cluster`. Only the cross-CTA mbarrier
/// phases order CTA 1's reads of a stage before CTA 0's next multicast into it (and the
/// multicast's writes before CTA 1's reads), so SAFE here needs the happens-before edges
/// of remote arrivals and of each destination's `complete_tx`; each twin removes one.
#[test]
fn cute_multicast_pipeline_gets_its_verdicts_with_a_trail() {
    let cases: &[(&str, &[&str])] = &[
        ("cute_multicast", &[]),
        (
            // CTA 1's full barrier is armed for 128 bytes that never come.
            "cute_multicast_wrong_mask",
            &[
                "in CTA (1, 0, 0):",
                "in CTA (0, 0, 0):",
                "phase 0 (parity 0) to complete",
                "128 transaction bytes are expected but never arrive (expect_tx of 128 bytes at line",
                "32 of its 64 arrivals are missing",
            ],
        ),
        (
            "cute_multicast_missing_peer_arrive",
            &["32 of its 64 arrivals are missing", "phase 0 (parity 0) to complete"],
        ),
        (
            "cute_multicast_peer_exits",
            &["data race with the exit of CTA (1, 0, 0)", "the bulk copy issued by thread (0, 0, 0)", "of CTA (0, 0, 0)"],
        ),
        (
            "cute_multicast_cta_scope",
            &["data race on shared", "of CTA (1, 0, 0)", "the bulk copy issued by thread (0, 0, 0)"],
        ),
        (
            "cute_multicast_no_init_fence",
            &["data race on shared", "`mbarrier.init.shared.b64`"],
        ),
    ];
    race_cases_get_their_verdicts(cases);
}

#[test]
fn cute_multicast_computes_twice_x_in_both_ctas() {
    // Each CTA stores its half of every tile from its own copy of the multicast tile, so
    // y = 2 * x holds only if the multicast landed at the same offset in CTA 1.
    let m = "ptx/cluster/cute_multicast.ptx";
    let (code, text) = lift(&["check", m, "--spec", "y = 2 * x"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("VERIFIED"), "{text}");
    let (code, text) = lift(&["check", m, "--spec", "y = 2 * torch.flip(x, [0])"]);
    assert_eq!(code, Some(1), "{text}");
    let (code, text) = lift(&[m]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("y[128] = 2 * x"), "{text}");
}
