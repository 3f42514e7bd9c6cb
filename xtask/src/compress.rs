//! Brotli and gzip copies of the built page's files, written beside them so the server
//! sends the smallest one the browser accepts (`Content-Encoding` by `Accept-Encoding`).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{self, Error};

/// Brotli's densest setting: the page is compressed once per build and sent many times.
const BROTLI_QUALITY: u32 = 11;
/// Brotli's window, 2^24 bytes: larger than the page's largest file.
const BROTLI_WINDOW_BITS: u32 = 24;

/// What compressing one file gave.
pub struct Compressed {
    /// The file, relative to the dist directory.
    pub file: PathBuf,
    /// Its size as built.
    pub raw: usize,
    /// The `.br` copy's size, when one was written.
    pub brotli: Option<usize>,
    /// The `.gz` copy's size, when one was written.
    pub gzip: Option<usize>,
}

/// Gzip at level 9 of `bytes`.
pub fn gzip9(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(bytes)
        .expect("writing to memory cannot fail");
    encoder.finish().expect("writing to memory cannot fail")
}

/// Brotli at quality 11 of `bytes`.
pub fn brotli11(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY as i32,
        lgwin: BROTLI_WINDOW_BITS as i32,
        size_hint: bytes.len(),
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)
        .expect("compressing from memory into memory cannot fail");
    out
}

fn files_under(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(error::file(&dir))?;
    for entry in entries {
        let path = entry.map_err(error::file(&dir))?.path();
        if path.is_dir() {
            files_under(&path, found)?;
        } else {
            found.push(path);
        }
    }
    Ok(())
}

fn is_copy(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|extension| extension.to_str()),
        Some("br" | "gz")
    )
}

/// Writes `FILE.br` and `FILE.gz` beside every file under `dist` (a copy only when it is
/// smaller than the file) and removes copies left from an earlier build.
pub fn precompress(dist: &Path) -> Result<Vec<Compressed>, Error> {
    let mut files = Vec::new();
    files_under(dist, &mut files)?;
    files.sort();
    let mut results = Vec::new();
    for path in &files {
        if is_copy(path) {
            continue;
        }
        let bytes = std::fs::read(path).map_err(error::file(&path))?;
        let write_copy = |extension: &str, copy: Vec<u8>| -> Result<Option<usize>, Error> {
            let mut name = path.as_os_str().to_owned();
            name.push(".");
            name.push(extension);
            let copy_path = PathBuf::from(name);
            if copy.len() >= bytes.len() {
                let _ = std::fs::remove_file(&copy_path);
                return Ok(None);
            }
            std::fs::write(&copy_path, &copy).map_err(error::file(&copy_path))?;
            Ok(Some(copy.len()))
        };
        let brotli = write_copy("br", brotli11(&bytes))?;
        let gzip = write_copy("gz", gzip9(&bytes))?;
        results.push(Compressed {
            file: path.strip_prefix(dist).unwrap_or(path).to_path_buf(),
            raw: bytes.len(),
            brotli,
            gzip,
        });
    }
    for path in files.iter().filter(|path| is_copy(path)) {
        if !path.with_extension("").is_file() {
            std::fs::remove_file(path)
                .map_err(|error| format!("cannot remove {}: {error}", path.display()))?;
        }
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::{brotli11, gzip9, precompress};
    use std::io::Read;

    #[test]
    fn copies_decompress_to_the_file_and_stale_ones_go() {
        let dist = std::env::temp_dir().join(format!("xtask-precompress-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dist);
        std::fs::create_dir_all(dist.join("snippets")).unwrap();
        let page = "<p>studio</p>\n".repeat(200);
        std::fs::write(dist.join("index.html"), &page).unwrap();
        std::fs::write(dist.join("snippets/tiny.js"), "x").unwrap();
        std::fs::write(dist.join("old-0123456789abcdef.js.br"), "stale").unwrap();

        let results = precompress(&dist).unwrap();

        let mut brotli = Vec::new();
        brotli::Decompressor::new(
            &std::fs::read(dist.join("index.html.br")).unwrap()[..],
            4096,
        )
        .read_to_end(&mut brotli)
        .unwrap();
        assert_eq!(brotli, page.as_bytes());
        let mut gzip = Vec::new();
        flate2::read::GzDecoder::new(&std::fs::read(dist.join("index.html.gz")).unwrap()[..])
            .read_to_end(&mut gzip)
            .unwrap();
        assert_eq!(gzip, page.as_bytes());
        // A one-byte file only grows when compressed: no copy.
        assert!(!dist.join("snippets/tiny.js.br").exists());
        assert!(!dist.join("snippets/tiny.js.gz").exists());
        assert!(!dist.join("old-0123456789abcdef.js.br").exists());
        assert_eq!(results.len(), 2);
        let index = results
            .iter()
            .find(|r| r.file.ends_with("index.html"))
            .unwrap();
        assert!(index.brotli.unwrap() < index.gzip.unwrap());
        std::fs::remove_dir_all(&dist).unwrap();
    }

    #[test]
    fn brotli_beats_gzip_on_text() {
        let text = (0..2000)
            .map(|n| format!("key{n}: value {n}\n"))
            .collect::<String>();
        assert!(brotli11(text.as_bytes()).len() < gzip9(text.as_bytes()).len());
    }
}
