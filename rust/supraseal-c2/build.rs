// Links libzkpipe-supraseal (the C ABI of supraseal-c2 over a running zkpipe pipeline).
//
// Where the library is found, first match wins:
//   ZKPIPE_SUPRASEAL_LIB_DIR  a directory holding libzkpipe-supraseal.so (a build tree's supraseal/
//                             or an install's lib directory)
//   pkg-config                the `pkg-config` program asked for zkpipe-supraseal (installed by
//                             `meson install`: <libdir>/pkgconfig/zkpipe-supraseal.pc; PKG_CONFIG
//                             names another program, PKG_CONFIG_PATH other directories)
// Neither: the build stops with an error saying both ways. No crate is used (no registry needed).
use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=ZKPIPE_SUPRASEAL_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_SYSROOT_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_LIBDIR");

    if let Ok(dir) = env::var("ZKPIPE_SUPRASEAL_LIB_DIR") {
        // cargo runs this script in the crate's own folder, and the path also goes into the binaries'
        // run path: a relative one would name another place than the caller meant
        if !Path::new(&dir).is_absolute() {
            panic!(
                "ZKPIPE_SUPRASEAL_LIB_DIR={} is a relative path: give an absolute one (cargo runs this \
                 build script in {}, not where it was called)",
                dir,
                env::var("CARGO_MANIFEST_DIR").unwrap_or_default()
            );
        }
        let so = Path::new(&dir).join("libzkpipe-supraseal.so");
        if !so.exists() {
            panic!(
                "ZKPIPE_SUPRASEAL_LIB_DIR={}: {} does not exist (build zkpipe, or point it at the \
                 directory that holds libzkpipe-supraseal.so)",
                dir,
                so.display()
            );
        }
        println!("cargo:rustc-link-search=native={}", dir);
        println!("cargo:rustc-link-lib=dylib=zkpipe-supraseal");
        println!("cargo:libdir={}", dir);
        // this crate's own executables (unit tests, examples) find the library where they were
        // linked from; a dependent crate's binaries are not affected (the loader's paths apply)
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
        return;
    }

    let prog = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let out = Command::new(&prog)
        .args(["--libs", "zkpipe-supraseal"])
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!(
            "cannot run {} ({}): install pkg-config, or set ZKPIPE_SUPRASEAL_LIB_DIR to the \
             directory holding libzkpipe-supraseal.so",
            prog, e
        ),
    };
    if !out.status.success() {
        panic!(
            "{} --libs zkpipe-supraseal failed: {}\nInstall zkpipe (meson install puts \
             zkpipe-supraseal.pc in <libdir>/pkgconfig; set PKG_CONFIG_PATH if that is not a default \
             directory), or set ZKPIPE_SUPRASEAL_LIB_DIR to the directory holding \
             libzkpipe-supraseal.so",
            prog,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let libs = String::from_utf8_lossy(&out.stdout).to_string();
    let mut linked = false;
    for flag in libs.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
            println!("cargo:libdir={}", dir);
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir);
        } else if let Some(lib) = flag.strip_prefix("-l") {
            linked |= lib == "zkpipe-supraseal";
            println!("cargo:rustc-link-lib={}", lib);
        }
    }
    if !linked {
        panic!(
            "{} --libs zkpipe-supraseal gave `{}`, without -lzkpipe-supraseal",
            prog,
            libs.trim()
        );
    }
}
