//! The fixture suite under `triton_ir/`: each folder with a `fixture.toml` carries its
//! kernel, launch, expected verdict and reference data (see triton_ir/README.md).
#![allow(dead_code)]

use lift::npy::{self, Array};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
pub struct FixtureToml {
    pub op: String,
    #[serde(default)]
    pub spec: String,
    pub expect: String,
    #[serde(default)]
    pub bug: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
    /// The op this kernel must be proved equivalent to (or refuted against, for twins).
    #[serde(default)]
    pub equiv: Option<String>,
    #[serde(default)]
    pub instance: Vec<InstanceToml>,
}

#[derive(Debug, Deserialize, Clone)]
pub struct InstanceToml {
    pub name: String,
    pub sizes: BTreeMap<String, i64>,
    #[serde(default)]
    pub scalars: BTreeMap<String, f64>,
}

pub struct Fixture {
    pub dir: PathBuf,
    pub meta: FixtureToml,
}

impl Fixture {
    pub fn kernel(&self) -> PathBuf {
        self.dir.join("kernel.ttir")
    }

    pub fn name(&self) -> String {
        self.dir.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// Input arrays of an instance: every `ref/<instance>/*.npy`.
    pub fn inputs(&self, inst: &InstanceToml) -> BTreeMap<String, Array> {
        read_dir_npy(&self.dir.join("ref").join(&inst.name))
    }

    /// Expected outputs of an instance: `ref/<instance>/expected/*.npy`.
    pub fn expected(&self, inst: &InstanceToml) -> BTreeMap<String, Array> {
        read_dir_npy(&self.dir.join("ref").join(&inst.name).join("expected"))
    }

    pub fn input_paths(&self, inst: &InstanceToml) -> Vec<(String, PathBuf)> {
        npy_files(&self.dir.join("ref").join(&inst.name))
    }
}

pub fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir")
}

/// Every fixture of the suite, sorted by folder name.
pub fn fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(suite_dir()).expect("triton_ir/ exists") {
        let dir = entry.unwrap().path();
        let toml_path = dir.join("fixture.toml");
        if !toml_path.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&toml_path).unwrap();
        let meta: FixtureToml =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", toml_path.display()));
        out.push(Fixture { dir, meta });
    }
    out.sort_by_key(|f| f.name());
    assert!(
        !out.is_empty(),
        "no fixtures under {}",
        suite_dir().display()
    );
    out
}

fn npy_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "npy"))
                .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn read_dir_npy(dir: &Path) -> BTreeMap<String, Array> {
    npy_files(dir)
        .into_iter()
        .map(|(name, p)| (name, npy::read(&p).unwrap()))
        .collect()
}

/// numpy.allclose(actual, expected, rtol, atol): the first element that is not close.
pub fn first_mismatch(actual: &Array, expected: &Array, rtol: f64, atol: f64) -> Option<String> {
    if actual.shape != expected.shape {
        return Some(format!(
            "shape {:?} != expected {:?}",
            actual.shape, expected.shape
        ));
    }
    for (i, (a, e)) in actual.data.iter().zip(&expected.data).enumerate() {
        let close = if e.is_finite() {
            (a - e).abs() <= atol + rtol * e.abs()
        } else {
            a == e || (a.is_nan() && e.is_nan())
        };
        if !close {
            return Some(format!("element {i}: got {a}, expected {e}"));
        }
    }
    None
}
