//! Block scoping of the names a PTX body declares, as ptxas resolves them: a register,
//! label or variable declared inside `{ }` is visible in that block and the blocks it
//! encloses, and shadows the same name of an enclosing block. A branch goes to the
//! label of the innermost enclosing block that declares it; a label of a sibling or
//! nested block is unknown there (ptxas: "Unknown symbol"). CuTe DSL and libcu++
//! emit one inline-asm block (`LAB_WAIT:`, `DONE:`, `.reg .pred P1;`) many times in
//! one function, so resolving labels function-wide would branch into another copy.
//!
//! Invariant: names of a body's outermost block keep their spelling; a label or
//! variable declared in an inner block is renamed to a body-unique key `name~k` (`~`
//! cannot occur in a PTX identifier), and every operand naming it from inside the
//! block is rewritten to that key when the block closes (labels may be used before
//! they are declared). Registers resolve to slots when an operand is parsed, since
//! they are always declared first.

use super::ast::{Instr, Operand};
use std::collections::HashMap;

/// The blocks open at a point of a body, outermost first.
#[derive(Default)]
pub(super) struct Scopes {
    blocks: Vec<Block>,
    /// Inner-block declarations made so far (the `k` of `name~k`).
    renamed: usize,
}

#[derive(Default)]
struct Block {
    regs: HashMap<String, u32>,
    /// Call-site `.param` names → their module-unique names.
    params: HashMap<String, String>,
    /// Labels and variables → the key they are known by.
    names: HashMap<String, String>,
    /// Labels among `names` (a second declaration of one is an error).
    labels: Vec<String>,
    /// Instructions with symbol operands this block or an outer one may resolve.
    pending: Vec<usize>,
}

impl Scopes {
    /// Open a block; `regs` are registers declared before it (a `.func`'s `.reg`
    /// parameters, for the body's outermost block).
    pub(super) fn open(&mut self, regs: impl IntoIterator<Item = (String, u32)>) {
        self.blocks.push(Block {
            regs: regs.into_iter().collect(),
            ..Block::default()
        });
    }

    /// Close the innermost block: rewrite the symbols it declares in the instructions
    /// that used them. True when that was the body's outermost block.
    pub(super) fn close(&mut self, body: &mut [Instr]) -> bool {
        let Some(block) = self.blocks.pop() else {
            return true;
        };
        let Some(outer) = self.blocks.last_mut() else {
            return true;
        };
        for i in block.pending {
            let Some(ins) = body.get_mut(i) else { continue };
            let mut open = false;
            for o in &mut ins.operands {
                resolve(o, &block.names, &mut open);
            }
            if open {
                outer.pending.push(i);
            }
        }
        false
    }

    pub(super) fn reg(&self, name: &str) -> Option<u32> {
        self.blocks
            .iter()
            .rev()
            .find_map(|b| b.regs.get(name).copied())
    }

    pub(super) fn declare_reg(&mut self, name: String, slot: u32) {
        if let Some(b) = self.blocks.last_mut() {
            b.regs.insert(name, slot);
        }
    }

    pub(super) fn param(&self, name: &str) -> Option<&String> {
        self.blocks.iter().rev().find_map(|b| b.params.get(name))
    }

    pub(super) fn declare_param(&mut self, name: String, unique: String) {
        if let Some(b) = self.blocks.last_mut() {
            b.params.insert(name, unique);
        }
    }

    /// Declare a label or variable in the innermost block: the key it is known by
    /// (its own name in the outermost block), or an error for a second label of one
    /// name in one block.
    pub(super) fn declare(&mut self, name: &str, is_label: bool) -> Result<String, String> {
        let depth = self.blocks.len();
        let k = self.renamed;
        let Some(b) = self.blocks.last_mut() else {
            return Ok(name.to_string());
        };
        if is_label && b.labels.iter().any(|l| l == name) {
            return Err(format!(
                "expected one label '{name}' per block, found a second"
            ));
        }
        let key = if depth <= 1 {
            name.to_string()
        } else {
            self.renamed += 1;
            format!("{name}~{k}")
        };
        if is_label {
            b.labels.push(name.to_string());
        }
        b.names.insert(name.to_string(), key.clone());
        Ok(key)
    }

    /// Remember instruction `i` of the body if it names symbols an enclosing block
    /// may declare.
    pub(super) fn note(&mut self, i: usize, ins: &Instr) {
        if self.blocks.len() > 1 && ins.operands.iter().any(has_plain_sym) {
            if let Some(b) = self.blocks.last_mut() {
                b.pending.push(i);
            }
        }
    }
}

/// A symbol not yet resolved to an inner block's key.
fn has_plain_sym(o: &Operand) -> bool {
    match o {
        Operand::Sym(s) => !s.contains('~'),
        Operand::Mem { base, .. } => has_plain_sym(base),
        Operand::Vector(xs) => xs.iter().any(has_plain_sym),
        Operand::Pair(a, b) => has_plain_sym(a) || has_plain_sym(b),
        Operand::Not(a) => has_plain_sym(a),
        Operand::Tensor { map, coords } => has_plain_sym(map) || coords.iter().any(has_plain_sym),
        _ => false,
    }
}

/// Rewrite the symbols `names` declares; `open` is set when one it does not declare
/// is left for an enclosing block.
fn resolve(o: &mut Operand, names: &HashMap<String, String>, open: &mut bool) {
    match o {
        Operand::Sym(s) if !s.contains('~') => match names.get(s.as_str()) {
            Some(key) => *s = key.clone(),
            None => *open = true,
        },
        Operand::Mem { base, .. } => resolve(base, names, open),
        Operand::Vector(xs) => xs.iter_mut().for_each(|x| resolve(x, names, open)),
        Operand::Pair(a, b) => {
            resolve(a, names, open);
            resolve(b, names, open);
        }
        Operand::Not(a) => resolve(a, names, open),
        Operand::Tensor { map, coords } => {
            resolve(map, names, open);
            coords.iter_mut().for_each(|x| resolve(x, names, open));
        }
        _ => {}
    }
}
