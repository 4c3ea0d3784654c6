//! NVRTC, NVIDIA's run-time CUDA C++ compiler, loaded when a command first needs it:
//! CUDA source (`.cu`) becomes PTX here, which the PTX front end then reads.
//!
//! Invariant: lift builds and runs without NVRTC; only compiling a `.cu` file needs it,
//! and then a missing library is an error naming what to install. The library is found
//! by `LIFT_NVRTC` (the library file, or a folder holding `libnvrtc.so.12`), else in
//! the pip wheel `nvidia-cuda-nvrtc-cu12` of `$LIFT_PYTHON` or `python3`, else by the
//! dynamic loader's own search. Compilation is deterministic: the PTX names files by
//! the path the source was given under (relative paths stay relative), so a `.cu` file
//! compiled here gives the PTX `ptx/generate.py` commits for it.

use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The options `ptx/generate.py` compiles every fixture with: sm_80 PTX, line
/// information (so findings name `.cu` lines), C++17.
pub const DEFAULT_OPTIONS: &[&str] = &["--gpu-architecture=compute_80", "-lineinfo", "--std=c++17"];

/// What to install when NVRTC is missing.
const INSTALL: &str = "pip install nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12 \
     nvidia-cuda-cccl-cu12 into the python3 lift finds (or a venv, then set LIFT_PYTHON to \
     its python), or set LIFT_NVRTC to libnvrtc.so.12; scripts/setup.sh does this";

/// A compiled kernel: the PTX text and the entry's name in it (mangled for C++ names).
#[derive(Clone, Debug)]
pub struct Compiled {
    pub ptx: String,
    /// The PTX `.entry` name of the requested kernel, when one was named.
    pub entry: Option<String>,
    /// NVRTC's warnings (empty when it had nothing to say).
    pub log: String,
}

/// NVRTC's library and the wheel folders it came with.
pub struct Nvrtc {
    lib: Library,
    /// `nvidia/` of the wheels, when NVRTC came from pip: the CUDA runtime's and CCCL's
    /// headers are under it.
    wheels: Option<PathBuf>,
}

type Prog = *mut c_void;

/// The NVRTC library, loaded once per process (or why it could not be).
fn nvrtc() -> Result<&'static Nvrtc, String> {
    static NVRTC: OnceLock<Result<Nvrtc, String>> = OnceLock::new();
    NVRTC.get_or_init(open).as_ref().map_err(Clone::clone)
}

fn open() -> Result<Nvrtc, String> {
    let mut tried = Vec::new();
    if let Some(v) = std::env::var_os("LIFT_NVRTC").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(v);
        let file = if p.is_dir() {
            p.join("libnvrtc.so.12")
        } else {
            p
        };
        // The variable names this library: no fallback hides a wrong path.
        return open_at(&file)
            .map_err(|e| format!("LIFT_NVRTC={}: {e}; unset it, or {INSTALL}", file.display()));
    }
    for python in pythons() {
        let Some(dir) = wheel_dir(&python) else {
            tried.push(format!("{python}: no nvidia-cuda-nvrtc-cu12 wheel"));
            continue;
        };
        let file = dir.join("cuda_nvrtc/lib/libnvrtc.so.12");
        match load(&file) {
            Ok(mut n) => {
                n.wheels = Some(dir);
                return Ok(n);
            }
            Err(e) => tried.push(format!("{}: {e}", file.display())),
        }
    }
    match load(Path::new("libnvrtc.so.12")) {
        Ok(n) => Ok(n),
        Err(e) => {
            tried.push(format!("libnvrtc.so.12 on the loader's path: {e}"));
            Err(format!("NVRTC not found ({}); {INSTALL}", tried.join("; ")))
        }
    }
}

/// NVRTC from `file` (a `libnvrtc.so.12`), with the headers of the wheels beside it
/// when it is the pip wheel's.
pub fn open_at(file: &Path) -> Result<Nvrtc, String> {
    let mut n = load(file)?;
    // <site-packages>/nvidia/cuda_nvrtc/lib/libnvrtc.so.12 → <site-packages>/nvidia
    n.wheels = file
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .filter(|w| w.join("cuda_nvrtc").is_dir())
        .map(Path::to_path_buf);
    Ok(n)
}

/// The `libnvrtc.so.12` of `python`'s pip wheel, if it has one.
pub fn wheel_library(python: &str) -> Option<PathBuf> {
    let file = wheel_dir(python)?.join("cuda_nvrtc/lib/libnvrtc.so.12");
    file.is_file().then_some(file)
}

fn load(file: &Path) -> Result<Nvrtc, String> {
    // A path, not a name for the loader's search: say plainly when it is not there.
    if file.components().count() > 1 && !file.exists() {
        return Err("no such file".into());
    }
    // SAFETY: loading NVRTC runs its initialisers, which have no preconditions; every
    // symbol is looked up with the signature of NVRTC 12's C API (nvrtc.h).
    let lib = unsafe { Library::new(file) }.map_err(|e| e.to_string())?;
    Ok(Nvrtc { lib, wheels: None })
}

/// The Pythons whose site-packages may hold the NVRTC wheel.
fn pythons() -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(p) = std::env::var("LIFT_PYTHON") {
        out.push(p);
    }
    out.push("python3".into());
    out
}

/// The `nvidia/` folder of `python`'s NVRTC wheel.
fn wheel_dir(python: &str) -> Option<PathBuf> {
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import nvidia.cuda_nvrtc as m, os; print(os.path.dirname(list(m.__path__)[0]))",
        ])
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !dir.trim().is_empty()).then(|| PathBuf::from(dir.trim()))
}

/// Whether NVRTC can be loaded, and if not why (with what to install).
pub fn available() -> Result<(), String> {
    nvrtc().map(|_| ())
}

/// NVRTC's version, e.g. `12.9`.
pub fn version() -> Result<String, String> {
    let n = nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: nvrtcVersion(int*, int*) writes two ints.
    unsafe {
        let f =
            n.sym::<unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int>(b"nvrtcVersion\0")?;
        n.check(f(&mut major, &mut minor), "nvrtcVersion")?;
    }
    Ok(format!("{major}.{minor}"))
}

/// Compile `source` (named `name` in the PTX's `.file` table and in messages) with
/// [`DEFAULT_OPTIONS`] and `extra` options. With `kernel`, NVRTC resolves that name
/// (a C++ name is mangled) and [`Compiled::entry`] is its `.entry`. Include folders of
/// the CUDA runtime and CCCL wheels are added when the source includes headers, as
/// `ptx/generate.py` does, and the PTX names those headers relative to site-packages.
pub fn compile(
    source: &str,
    name: &str,
    kernel: Option<&str>,
    extra: &[String],
) -> Result<Compiled, String> {
    nvrtc()?.compile(source, name, kernel, extra)
}

impl Nvrtc {
    /// [`compile`] with this library.
    pub fn compile(
        &self,
        source: &str,
        name: &str,
        kernel: Option<&str>,
        extra: &[String],
    ) -> Result<Compiled, String> {
        let n = self;
        let mut options: Vec<String> = DEFAULT_OPTIONS.iter().map(|s| s.to_string()).collect();
        options.extend(extra.iter().cloned());
        let mut includes = Vec::new();
        if let Some(w) = &n.wheels {
            if source.contains("#include") {
                includes.push((
                    w.join("cuda_runtime/include"),
                    "nvidia/cuda_runtime/include/",
                ));
            }
            if source.contains("cooperative_groups") {
                includes.push((w.join("cuda_cccl/include"), "nvidia/cuda_cccl/include/"));
            }
        }
        for (dir, _) in &includes {
            options.push(format!("-I{}", dir.display()));
        }
        let mut compiled = n.compile_raw(source, name, kernel, &options)?;
        for (dir, shown) in &includes {
            compiled.ptx = compiled
                .ptx
                .replace(&format!("\"{}/", dir.display()), &format!("\"{shown}"));
        }
        // NVRTC writes `.file N "<cwd>/<name>"` for a relative name; the PTX keeps the
        // name as given, and headers relative to site-packages, so it holds no machine path.
        if let Ok(cwd) = std::env::current_dir() {
            compiled.ptx = compiled.ptx.replace(&format!("\"{}/", cwd.display()), "\"");
        }
        Ok(compiled)
    }
}

fn cstring(s: &str, what: &str) -> Result<CString, String> {
    CString::new(s).map_err(|_| format!("{what} holds a NUL byte"))
}

impl Nvrtc {
    /// # Safety
    /// `T` must be the C signature of `name` in nvrtc.h.
    unsafe fn sym<T>(&self, name: &[u8]) -> Result<libloading::Symbol<'_, T>, String> {
        self.lib.get(name).map_err(|e| {
            let shown = String::from_utf8_lossy(&name[..name.len() - 1]).into_owned();
            format!("NVRTC has no {shown}: {e}")
        })
    }

    /// NVRTC's text for a result code, as an error unless it is success.
    fn check(&self, rc: c_int, what: &str) -> Result<(), String> {
        if rc == 0 {
            return Ok(());
        }
        // SAFETY: nvrtcGetErrorString(int) returns a static NUL-terminated string.
        let text = unsafe {
            self.sym::<unsafe extern "C" fn(c_int) -> *const c_char>(b"nvrtcGetErrorString\0")
                .ok()
                .map(|f| f(rc))
                .filter(|p| !p.is_null())
                .map(|p| CStr::from_ptr(p).to_string_lossy().into_owned())
        };
        Err(format!(
            "{what}: {}",
            text.unwrap_or_else(|| format!("error {rc}"))
        ))
    }

    fn compile_raw(
        &self,
        source: &str,
        name: &str,
        kernel: Option<&str>,
        options: &[String],
    ) -> Result<Compiled, String> {
        let src = cstring(source, "the source")?;
        let file = cstring(name, "the file name")?;
        let kernel_c = kernel.map(|k| cstring(k, "the kernel name")).transpose()?;
        let opts: Vec<CString> = options
            .iter()
            .map(|o| cstring(o, "an NVRTC option"))
            .collect::<Result<_, _>>()?;
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: each call below is NVRTC 12's C API with its documented signature;
        // every pointer passed lives until the program is destroyed at the end, and
        // buffers are sized by the matching *Size call.
        unsafe {
            type Create = unsafe extern "C" fn(
                *mut Prog,
                *const c_char,
                *const c_char,
                c_int,
                *const *const c_char,
                *const *const c_char,
            ) -> c_int;
            type Size = unsafe extern "C" fn(Prog, *mut usize) -> c_int;
            type Get = unsafe extern "C" fn(Prog, *mut c_char) -> c_int;
            let create = self.sym::<Create>(b"nvrtcCreateProgram\0")?;
            let add_name = self.sym::<unsafe extern "C" fn(Prog, *const c_char) -> c_int>(
                b"nvrtcAddNameExpression\0",
            )?;
            let compile = self
                .sym::<unsafe extern "C" fn(Prog, c_int, *const *const c_char) -> c_int>(
                    b"nvrtcCompileProgram\0",
                )?;
            let log_size = self.sym::<Size>(b"nvrtcGetProgramLogSize\0")?;
            let get_log = self.sym::<Get>(b"nvrtcGetProgramLog\0")?;
            let ptx_size = self.sym::<Size>(b"nvrtcGetPTXSize\0")?;
            let get_ptx = self.sym::<Get>(b"nvrtcGetPTX\0")?;
            let lowered =
                self.sym::<unsafe extern "C" fn(Prog, *const c_char, *mut *const c_char) -> c_int>(
                    b"nvrtcGetLoweredName\0",
                )?;
            let destroy =
                self.sym::<unsafe extern "C" fn(*mut Prog) -> c_int>(b"nvrtcDestroyProgram\0")?;

            let mut prog: Prog = std::ptr::null_mut();
            let none = std::ptr::null();
            self.check(
                create(&mut prog, src.as_ptr(), file.as_ptr(), 0, none, none),
                "nvrtcCreateProgram",
            )?;
            let result = (|| {
                if let Some(k) = &kernel_c {
                    self.check(add_name(prog, k.as_ptr()), "nvrtcAddNameExpression")?;
                }
                let rc = compile(prog, opt_ptrs.len() as c_int, opt_ptrs.as_ptr());
                let mut size = 0usize;
                self.check(log_size(prog, &mut size), "nvrtcGetProgramLogSize")?;
                let mut buf = vec![0u8; size.max(1)];
                self.check(get_log(prog, buf.as_mut_ptr().cast()), "nvrtcGetProgramLog")?;
                let log = CStr::from_bytes_until_nul(&buf)
                    .map(|c| c.to_string_lossy().trim_end().to_string())
                    .unwrap_or_default();
                if rc != 0 {
                    if let (Some(k), true) = (kernel, log.contains("__nv_name_map")) {
                        return Err(format!(
                            "no __global__ kernel named {k} (NVRTC cannot resolve the name)"
                        ));
                    }
                    return Err(format!("NVRTC could not compile it:\n{log}"));
                }
                self.check(ptx_size(prog, &mut size), "nvrtcGetPTXSize")?;
                let mut buf = vec![0u8; size.max(1)];
                self.check(get_ptx(prog, buf.as_mut_ptr().cast()), "nvrtcGetPTX")?;
                let ptx = CStr::from_bytes_until_nul(&buf)
                    .map_err(|_| "NVRTC's PTX is not NUL-terminated".to_string())?
                    .to_string_lossy()
                    .into_owned();
                let entry = match &kernel_c {
                    Some(k) => {
                        let mut out: *const c_char = std::ptr::null();
                        self.check(lowered(prog, k.as_ptr(), &mut out), "nvrtcGetLoweredName")?;
                        (!out.is_null()).then(|| CStr::from_ptr(out).to_string_lossy().into_owned())
                    }
                    None => None,
                };
                Ok(Compiled { ptx, entry, log })
            })();
            destroy(&mut prog);
            result
        }
    }
}
