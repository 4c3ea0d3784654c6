//! The device part of a PyTorch C++/CUDA extension's source, the way language models
//! and KernelBench solutions hand kernels around (`load_inline(cuda_sources=...)`):
//! `#include <torch/extension.h>`, host wrappers taking `torch::Tensor`, a launch with
//! `<<<...>>>`, and a `PYBIND11_MODULE`, beside the `__global__` kernels. NVRTC compiles
//! device code only and has no PyTorch headers, so those host parts are blanked here.
//!
//! Invariant: only a source that includes a PyTorch or pybind11 header is changed, and
//! only by replacing whole top-level items (a preprocessor line, a declaration, a
//! function or block) with spaces, newlines kept: every kept character stays on its
//! line and column, so findings still name the user's `.cu` lines. An item that
//! mentions `__global__` or `__device__` is always kept, so no kernel code is lost.

/// Headers whose presence marks an extension source, and whose includes are blanked.
const HOST_HEADERS: &[&str] = &["torch/", "ATen/", "c10/", "pybind11/"];

/// Words that only host code of an extension uses.
const HOST_WORDS: &[&str] = &[
    "torch::",
    "at::",
    "c10::",
    "Tensor",
    "TORCH_",
    "AT_DISPATCH",
    "PYBIND11_",
    "<<<",
];

/// The source with its PyTorch host parts blanked, or `None` when it is not an
/// extension source (it includes no PyTorch or pybind11 header).
pub fn device_part(source: &str) -> Option<String> {
    let items = top_level_items(source);
    let is_host_include = |item: &str| {
        let t = item.trim_start();
        t.starts_with('#')
            && t[1..].trim_start().starts_with("include")
            && HOST_HEADERS.iter().any(|h| t.contains(h))
    };
    if !items.iter().any(|r| is_host_include(&source[r.clone()])) {
        return None;
    }
    let mut out = source.to_string().into_bytes();
    for r in items {
        let item = &source[r.clone()];
        let device = item.contains("__global__") || item.contains("__device__");
        let host = HOST_WORDS.iter().any(|w| item.contains(w));
        if is_host_include(item) || (!device && host && !item.trim_start().starts_with('#')) {
            for b in &mut out[r] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        }
    }
    // Only ASCII bytes of whole items were replaced, by ASCII: still UTF-8 wherever a
    // multi-byte character was blanked whole (an item boundary never splits one).
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Byte ranges of the top-level items of C++ source: preprocessor lines (with their
/// continuations), and declarations or definitions ending at a `;` or at the `}` that
/// closes their outermost brace. Comments, string and character literals are skipped
/// over, so a brace or `;` inside them ends nothing.
fn top_level_items(src: &str) -> Vec<std::ops::Range<usize>> {
    let b = src.as_bytes();
    let mut items = Vec::new();
    let (mut i, mut start, mut depth) = (0, None::<usize>, 0usize);
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let at_line_start = std::mem::replace(&mut line_start, false);
        if c == b'#' && at_line_start && depth == 0 && start.is_none() {
            let mut j = i;
            while j < b.len() && !(b[j] == b'\n' && (j == 0 || b[j - 1] != b'\\')) {
                j += 1;
            }
            items.push(i..j);
            i = j;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = src[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
            continue;
        }
        start.get_or_insert(i);
        match c {
            b'"' | b'\'' => i = literal_end(b, i),
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
                if depth == 0 {
                    items.extend(start.take().map(|s| s..i));
                }
            }
            b';' if depth == 0 => {
                i += 1;
                items.extend(start.take().map(|s| s..i));
            }
            _ => i += 1,
        }
    }
    items.extend(start.map(|s| s..b.len()));
    items
}

/// The index just past the string or character literal opening at `i` (a raw string
/// `R"delim(...)delim"` included).
fn literal_end(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    if quote == b'"' && i > 0 && b[i - 1] == b'R' {
        let open = b[i + 1..].iter().position(|&c| c == b'(');
        if let Some(k) = open {
            let delim = &b[i + 1..i + 1 + k];
            let mut close = vec![b')'];
            close.extend_from_slice(delim);
            close.push(b'"');
            let body = i + 2 + k;
            return b[body..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |p| body + p + close.len());
        }
    }
    let mut j = i + 1;
    while j < b.len() && b[j] != quote && b[j] != b'\n' {
        j += if b[j] == b'\\' { 2 } else { 1 };
    }
    (j + 1).min(b.len())
}

#[cfg(test)]
mod tests {
    use super::device_part;

    const SOLUTION: &str = r#"#include <torch/extension.h>
#include <cuda_runtime.h>

// one thread per element; "}" in a comment
__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = x[i] > 0.f ? x[i] : 0.f; }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const char* s = "{";
    relu_kernel<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("relu_cuda", &relu_cuda); }
"#;

    #[test]
    fn an_extension_keeps_its_kernels_on_their_lines_and_loses_its_host_code() {
        let device = device_part(SOLUTION).expect("an extension source");
        let lines: Vec<&str> = device.lines().collect();
        let original: Vec<&str> = SOLUTION.lines().collect();
        assert_eq!(lines.len(), original.len(), "newlines kept");
        // Lines 1 (torch include), 10–15 (host wrapper) and 17 (module) are blank.
        for n in [1, 10, 11, 12, 13, 14, 15, 17] {
            assert!(
                lines[n - 1].trim().is_empty(),
                "line {n}: {:?}",
                lines[n - 1]
            );
        }
        // The CUDA include, the comment and the kernel are kept verbatim.
        for n in [2, 4, 5, 6, 7, 8] {
            assert_eq!(lines[n - 1], original[n - 1], "line {n}");
        }
    }

    #[test]
    fn a_plain_cuda_source_is_left_alone() {
        assert_eq!(
            device_part("__global__ void k(float* x) { x[0] = 1.f; }\n"),
            None
        );
        // A torch header named only in a comment does not make it an extension.
        assert_eq!(
            device_part("// #include <torch/extension.h>\n__global__ void k() {}\n"),
            None
        );
    }

    #[test]
    fn device_helpers_and_structs_stay() {
        let src = "#include <torch/extension.h>\nstruct P { float a; };\n__device__ float f(float v) { return v; }\nat::Tensor g();\n";
        let out = device_part(src).unwrap();
        assert!(out.contains("struct P { float a; };"));
        assert!(out.contains("__device__ float f(float v) { return v; }"));
        assert!(!out.contains("at::Tensor"));
    }
}
