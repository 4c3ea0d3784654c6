//! The `lift batch` manifest: a TOML file of `[[job]]` tables, or a JSON file holding a
//! list of job objects (or `{"job": [...]}`), read into [`Job`]s.
//!
//! Invariant: a manifest is read whole before any job runs, and a bad one is an error
//! naming the file, the line and what was expected (unknown keys included); paths in a
//! job are relative to the manifest's folder and are normalised lexically, so
//! `tests/batch/../../triton_ir/x` is shown as `triton_ir/x`.

use crate::error::Error;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// What a job runs: one of lift's commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Lift,
    Check,
    Equiv,
    Race,
}

impl Kind {
    pub fn word(self) -> &'static str {
        match self {
            Kind::Lift => "lift",
            Kind::Check => "check",
            Kind::Equiv => "equiv",
            Kind::Race => "race",
        }
    }
}

/// One job as the file spells it; [`Job`] is it checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    id: Option<String>,
    kind: Kind,
    kernel: PathBuf,
    kernel2: Option<PathBuf>,
    spec: Option<String>,
    launch: Option<PathBuf>,
    launch2: Option<PathBuf>,
    #[serde(default)]
    sizes: BTreeMap<String, i64>,
    scope: Option<Scope>,
    precision: Option<Precision>,
    masked_load: Option<MaskedLoad>,
    #[serde(default)]
    strict_races: bool,
    max_case_splits: Option<usize>,
    /// CUDA source: the kernel's name (`--kernel`), and the second kernel's.
    name: Option<String>,
    name2: Option<String>,
    #[serde(default)]
    nvrtc_options: Vec<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    #[default]
    All,
    Instance,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    #[default]
    Real,
    Ieee,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MaskedLoad {
    #[default]
    Undefined,
    Zero,
}

/// A checked job: what `lift batch` runs.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "RawJob")]
pub struct Job {
    /// The job's name in its record (default: `<kind> <kernel>`).
    pub id: Option<String>,
    pub kind: Kind,
    /// The kernel, and for `equiv` the second one (`kernel2`).
    pub kernels: Vec<PathBuf>,
    pub spec: Option<String>,
    pub launch: Option<PathBuf>,
    pub launch2: Option<PathBuf>,
    pub sizes: BTreeMap<String, i64>,
    pub scope: Scope,
    pub precision: Precision,
    pub masked_load: MaskedLoad,
    pub strict_races: bool,
    pub max_case_splits: Option<usize>,
    pub names: [Option<String>; 2],
    pub nvrtc_options: Vec<String>,
}

impl TryFrom<RawJob> for Job {
    type Error = String;

    fn try_from(r: RawJob) -> Result<Job, String> {
        let kind = r.kind.word();
        let needs = |ok: bool, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(format!("a `{kind}` job {what}"))
            }
        };
        needs(
            r.spec.is_some() == (r.kind == Kind::Check),
            match r.kind {
                Kind::Check => "needs `spec = \"y = torch...\"`",
                _ => "takes no `spec` (only `check` does)",
            },
        )?;
        let two = r.kind == Kind::Equiv;
        needs(
            r.kernel2.is_some() == two,
            if two {
                "needs `kernel2`, the kernel compared with `kernel`"
            } else {
                "takes no `kernel2` (only `equiv` does)"
            },
        )?;
        needs(
            two || (r.launch2.is_none() && r.name2.is_none()),
            "takes no `launch2` or `name2` (only `equiv` does)",
        )?;
        needs(
            r.kind == Kind::Race || !r.strict_races,
            "takes no `strict_races` (only `race` does)",
        )?;
        needs(
            matches!(r.kind, Kind::Check | Kind::Equiv) || r.max_case_splits.is_none(),
            "takes no `max_case_splits` (only `check` and `equiv` do)",
        )?;
        needs(
            r.kind != Kind::Race || r.scope.is_none(),
            "takes no `scope` (a race check is of one instance)",
        )?;
        needs(
            r.kind != Kind::Race || r.precision.is_none(),
            "takes no `precision` (races are looked for in the reals)",
        )?;
        if r.id.as_deref().is_some_and(str::is_empty) {
            return Err("`id` is empty".into());
        }
        Ok(Job {
            id: r.id,
            kind: r.kind,
            kernels: std::iter::once(r.kernel).chain(r.kernel2).collect(),
            spec: r.spec,
            launch: r.launch,
            launch2: r.launch2,
            sizes: r.sizes,
            scope: r.scope.unwrap_or_default(),
            precision: r.precision.unwrap_or_default(),
            masked_load: r.masked_load.unwrap_or_default(),
            strict_races: r.strict_races,
            max_case_splits: r.max_case_splits,
            names: [r.name, r.name2],
            nvrtc_options: r.nvrtc_options,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlManifest {
    #[serde(default)]
    job: Vec<Job>,
}

/// The jobs of a JSON manifest: a list, or `{"job": [...]}`. A job's error names the
/// line its object starts on (serde_json would name where it ends).
fn read_json(text: &str) -> Result<Vec<Job>, String> {
    let expected = "expected a list of jobs ({\"kind\": \"check\", \"kernel\": \"k.ttir\", \"spec\": \"y = ...\"}, docs/batch.md)";
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format!("{}:{}: {e}; {expected}", e.line(), e.column()))?;
    let (list, depth) = match value {
        serde_json::Value::Array(list) => (list, 1),
        serde_json::Value::Object(mut o) if o.len() == 1 && o.contains_key("job") => {
            match o.remove("job") {
                Some(serde_json::Value::Array(list)) => (list, 2),
                _ => return Err(format!("1: `job` is not a list; {expected}")),
            }
        }
        _ => return Err(format!("1: {expected}")),
    };
    let lines = object_lines(text, depth);
    list.into_iter()
        .enumerate()
        .map(|(i, v)| {
            serde_json::from_value::<Job>(v).map_err(|e| {
                let line = lines.get(i).copied().unwrap_or(1);
                format!("{line}: job {i}: {e}; {expected}")
            })
        })
        .collect()
}

/// The line of each object opening at bracket depth `depth` (strings skipped).
fn object_lines(text: &str, depth: usize) -> Vec<usize> {
    let (mut line, mut level, mut in_string, mut escaped) = (1, 0usize, false, false);
    let mut out = Vec::new();
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => escaped = false,
            }
        } else {
            match c {
                '"' => in_string = true,
                '{' | '[' => {
                    if c == '{' && level == depth {
                        out.push(line);
                    }
                    level += 1;
                }
                '}' | ']' => level = level.saturating_sub(1),
                _ => {}
            }
        }
        if c == '\n' {
            line += 1;
        }
    }
    out
}

/// A manifest read whole: its jobs (paths resolved) and the hash of its text, which
/// every record carries so `--merge` refuses shards of different manifests.
pub struct Manifest {
    pub jobs: Vec<Job>,
    pub hash: String,
}

/// Read the manifest at `path` (`.json` is JSON, anything else TOML).
pub fn read(path: &Path) -> Result<Manifest, Error> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: shown.clone(),
        message: format!("cannot read the batch manifest: {e}"),
    })?;
    let bad = |message: String| Error::Usage(format!("{shown}:{message}"));
    let mut jobs = if path.extension().is_some_and(|e| e == "json") {
        read_json(&text).map_err(bad)?
    } else {
        let m: TomlManifest = toml::from_str(&text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            let at = line.map_or(String::new(), |l| format!("{l}:"));
            bad(format!(
                "{at} {}; expected [[job]] tables with kind, kernel and their options (docs/batch.md)",
                e.message()
            ))
        })?;
        m.job
    };
    if jobs.is_empty() {
        return Err(bad(" no jobs: expected [[job]] tables (TOML) or a list of job objects (JSON), see docs/batch.md".into()));
    }
    let base = path.parent().unwrap_or(Path::new(""));
    for j in &mut jobs {
        for k in &mut j.kernels {
            *k = resolve(base, k);
        }
        for l in [&mut j.launch, &mut j.launch2].into_iter().flatten() {
            *l = resolve(base, l);
        }
    }
    Ok(Manifest {
        jobs,
        hash: fnv(&text),
    })
}

/// `path` relative to `base` (absolute paths stay), with `.` and `..` folded lexically.
fn resolve(base: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(path).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// FNV-1a of the manifest text, as 16 hex digits.
fn fnv(text: &str) -> String {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_fold_lexically() {
        let r = resolve(
            Path::new("tests/batch"),
            Path::new("../../triton_ir/x/kernel.ttir"),
        );
        assert_eq!(r, PathBuf::from("triton_ir/x/kernel.ttir"));
        assert_eq!(
            resolve(Path::new(""), Path::new("../a")),
            PathBuf::from("../a")
        );
        assert_eq!(
            resolve(Path::new("/m"), Path::new("/abs/k.ptx")),
            PathBuf::from("/abs/k.ptx")
        );
    }
}
