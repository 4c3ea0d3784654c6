//! NumPy `.npy` files: the array format every kernel author already has at hand.
//!
//! Architecture invariant: arrays cross this boundary as row-major `f64` data with a
//! shape; float32/float64/int32/int64/bool files are read, float64 files are written.

use std::path::Path;

/// A dense row-major array.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct NpyError {
    pub file: String,
    pub message: String,
}

/// Read an `.npy` file (C order; float32, float64, int32, int64 or bool).
pub fn read(path: &Path) -> Result<Array, NpyError> {
    let err = |message: String| NpyError {
        file: path.display().to_string(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let npy = npyz::NpyFile::new(&bytes[..]).map_err(|e| err(format!("not an .npy file: {e}")))?;
    if npy.order() != npyz::Order::C {
        return Err(err(
            "Fortran-order arrays are not supported; save with np.ascontiguousarray".into(),
        ));
    }
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let descr = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => return Err(err(format!("unsupported dtype {}", other.descr()))),
    };
    let bad = |e: std::io::Error| err(format!("corrupt data: {e}"));
    let data: Vec<f64> = match &descr[1..] {
        "f4" => npy
            .into_vec::<f32>()
            .map_err(bad)?
            .into_iter()
            .map(f64::from)
            .collect(),
        "f8" => npy.into_vec::<f64>().map_err(bad)?,
        "i4" => npy
            .into_vec::<i32>()
            .map_err(bad)?
            .into_iter()
            .map(f64::from)
            .collect(),
        "i8" => npy
            .into_vec::<i64>()
            .map_err(bad)?
            .into_iter()
            .map(|v| v as f64)
            .collect(),
        "b1" => npy
            .into_vec::<bool>()
            .map_err(bad)?
            .into_iter()
            .map(|b| b as u8 as f64)
            .collect(),
        _ => {
            return Err(err(format!(
                "unsupported dtype '{descr}' (float32, float64, int32, int64 and bool are read)"
            )))
        }
    };
    Ok(Array { shape, data })
}

/// Write a float64 `.npy` file.
pub fn write(path: &Path, array: &Array) -> Result<(), NpyError> {
    let err = |message: String| NpyError {
        file: path.display().to_string(),
        message,
    };
    let mut out = Vec::new();
    {
        let shape: Vec<u64> = array.shape.iter().map(|&d| d as u64).collect();
        use npyz::WriterBuilder;
        let mut writer = npyz::WriteOptions::<f64>::new()
            .default_dtype()
            .shape(&shape)
            .writer(&mut out)
            .begin_nd()
            .map_err(|e| err(e.to_string()))?;
        writer
            .extend(array.data.iter().copied())
            .map_err(|e| err(e.to_string()))?;
        writer.finish().map_err(|e| err(e.to_string()))?;
    }
    std::fs::write(path, out).map_err(|e| err(format!("cannot write: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_shape_and_values() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.npy");
        let a = Array {
            shape: vec![2, 3],
            data: vec![1.0, -2.5, 3.0, f64::INFINITY, 0.1, 6.0],
        };
        write(&path, &a).unwrap();
        assert_eq!(read(&path).unwrap(), a);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.npy");
        std::fs::write(&path, b"\x93NUMPY garbage").unwrap();
        let e = read(&path).unwrap_err();
        assert!(e.to_string().contains("bad.npy"), "{e}");
    }
}
