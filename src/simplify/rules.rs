//! The rule files of `rules/` at the top of the repository: the formula datatype and
//! its guards first, then the rewrites. Read at run time from `$LIFT_RULES` (a folder)
//! where that is set, each file falling back to the copy built into the binary.
//!
//! Invariant: the order is fixed (datatype, arithmetic, constants, named ops), so a
//! run depends only on the files' text.

use super::SimplifyError;

/// One rule file: its name (as errors and tests cite it) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleFile {
    pub name: String,
    pub text: String,
}

/// The rule files, in load order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    pub files: Vec<RuleFile>,
}

/// The built-in copies, in load order.
pub const BUILT_IN: [(&str, &str); 4] = [
    ("formula.egg", include_str!("../../rules/formula.egg")),
    ("arith.egg", include_str!("../../rules/arith.egg")),
    ("constants.egg", include_str!("../../rules/constants.egg")),
    ("named.egg", include_str!("../../rules/named.egg")),
];

impl Rules {
    /// The copies built into the binary.
    pub fn built_in() -> Rules {
        Rules {
            files: BUILT_IN
                .iter()
                .map(|(name, text)| RuleFile {
                    name: format!("rules/{name}"),
                    text: text.to_string(),
                })
                .collect(),
        }
    }

    /// Each file from the folder `$LIFT_RULES` where set and present, else built in.
    pub fn load() -> Result<Rules, SimplifyError> {
        let Some(dir) = std::env::var_os("LIFT_RULES") else {
            return Ok(Rules::built_in());
        };
        let dir = std::path::PathBuf::from(dir);
        let mut rules = Rules::built_in();
        for (file, (name, _)) in rules.files.iter_mut().zip(BUILT_IN) {
            let path = dir.join(name);
            if path.exists() {
                file.text = std::fs::read_to_string(&path)
                    .map_err(|e| SimplifyError(format!("{}: {e}", path.display())))?;
                file.name = path.display().to_string();
            }
        }
        Ok(rules)
    }

    /// The rules with `text` appended as one more file (tests add a rule so).
    pub fn with(mut self, name: &str, text: &str) -> Rules {
        self.files.push(RuleFile {
            name: name.to_string(),
            text: text.to_string(),
        });
        self
    }
}
