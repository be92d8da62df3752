//! The CPU features the forward pass's own kernels may use: probed here once (and nowhere
//! else in `nn/`), then capped by `TENGEN_CPU`, so that one machine can run every kernel
//! path it has the instructions for, the fallbacks included:
//!
//! - `TENGEN_CPU=scalar`: no SIMD copies; the matrix products too run on Tengen's own
//!   loops instead of the gemm crate (whose dispatch cannot be capped).
//! - `TENGEN_CPU=avx2`: AVX2 with FMA, without AVX-VNNI (the paths of CPUs without AVX-512,
//!   an older EPYC's): the matrix products as under `scalar`, compiled for AVX2; int8 on
//!   `vpmaddubsw`.
//! - `TENGEN_CPU=avx512`: AVX-512 F, VL and BW without AVX512-BF16 or either VNNI: fp32 on
//!   the AVX-512 tiles, bf16 emulated by fp32 multiply-adds, int8 on AVX2's `vpmaddubsw`.
//! - `TENGEN_CPU=avx512vnni`: AVX-512 with AVX512-BF16 and VNNI, without AMX: int8 on
//!   `vpdpbusd` (`nn::int8`) where the CPU would use AMX's tiles (`nn::int8::amx`).
//! - `TENGEN_CPU=native` (or unset): everything the CPU has.
//!
//! A cap never adds what the CPU lacks. Knows nothing of models or layers.

use std::sync::OnceLock;

/// What the kernels may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Features {
    /// AVX2 with FMA.
    pub avx2: bool,
    /// AVX-512 F, VL and BW (with AVX2 and FMA).
    pub avx512: bool,
    /// AVX512-BF16's instructions (beside [`avx512`](Self::avx512)).
    pub avx512bf16: bool,
    /// AVX512-VNNI (beside [`avx512`](Self::avx512)).
    pub avx512vnni: bool,
    /// AMX-TILE and AMX-INT8, with the tiles' state enabled by the OS (XCR0), beside
    /// [`avx512vnni`](Self::avx512vnni). Linux still asks each process to request the
    /// tiles before their first use (`nn::int8::amx` does).
    pub amxint8: bool,
    /// AVX-VNNI: `vpdpbusd` on 256-bit registers (beside [`avx2`](Self::avx2)); only
    /// uncapped, so that a cap runs the int8 kernel of AVX2 CPUs without it.
    pub avxvnni: bool,
    /// Whether `TENGEN_CPU` took something away from what the CPU has.
    pub capped: bool,
}

/// The caps `TENGEN_CPU` takes, lowest first.
pub const CAPS: [&str; 5] = ["scalar", "avx2", "avx512", "avx512vnni", "native"];

impl Features {
    /// What this CPU has.
    pub fn detected() -> Features {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
            let avx512 = avx2
                && is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512vl")
                && is_x86_feature_detected!("avx512bw");
            Features {
                avx2,
                avx512,
                avx512bf16: avx512 && is_x86_feature_detected!("avx512bf16"),
                avx512vnni: avx512 && is_x86_feature_detected!("avx512vnni"),
                amxint8: avx512 && is_x86_feature_detected!("avx512vnni") && amx_int8(),
                avxvnni: avx2 && is_x86_feature_detected!("avxvnni"),
                capped: false,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        Features::default()
    }

    /// These features under the cap `name` (one of [`CAPS`]); `None` for another word.
    pub fn capped(self, name: &str) -> Option<Features> {
        let level = CAPS.iter().position(|c| *c == name.trim())?;
        let capped = Features {
            avx2: self.avx2 && level >= 1,
            avx512: self.avx512 && level >= 2,
            avx512bf16: self.avx512bf16 && level >= 3,
            avx512vnni: self.avx512vnni && level >= 3,
            amxint8: self.amxint8 && level >= 4,
            avxvnni: self.avxvnni && level >= 4,
            capped: false,
        };
        Some(Features {
            capped: capped != self,
            ..capped
        })
    }

    /// The instruction sets in use, as `bench` and the start-up line name them:
    /// `avx512+bf16+vnni+amx`, `avx512`, `avx2+avxvnni`, `avx2`, `scalar`;
    /// `(TENGEN_CPU=..)` when capped.
    pub fn describe(self) -> String {
        let mut s = if self.avx512 {
            let mut s = "avx512".to_string();
            if self.avx512bf16 {
                s.push_str("+bf16");
            }
            if self.avx512vnni {
                s.push_str("+vnni");
            }
            if self.amxint8 {
                s.push_str("+amx");
            }
            s
        } else if self.avx2 && self.avxvnni {
            "avx2+avxvnni".to_string()
        } else if self.avx2 {
            "avx2".to_string()
        } else {
            "scalar".to_string()
        };
        if self.capped {
            let cap = std::env::var("TENGEN_CPU").unwrap_or_default();
            s.push_str(&format!(" (TENGEN_CPU={})", cap.trim()));
        }
        s
    }

    /// [`describe`](Self::describe) as one word, for `bench`'s `key=value` fields:
    /// `avx2(TENGEN_CPU=avx2)`.
    pub fn word(self) -> String {
        self.describe().replace(' ', "")
    }
}

/// AMX-TILE and AMX-INT8 (CPUID leaf 7: EDX bits 24 and 25), their tile configuration and
/// data enabled in XCR0 (bits 17 and 18). The standard library's detection of AMX is
/// unstable (Rust 1.91).
#[cfg(target_arch = "x86_64")]
fn amx_int8() -> bool {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    let (max, leaf1, leaf7) = (__cpuid(0).eax, __cpuid(1), __cpuid_count(7, 0));
    let osxsave = leaf1.ecx & (1 << 27) != 0;
    if max < 7 || !osxsave || leaf7.edx & (3 << 24) != 3 << 24 {
        return false;
    }
    let (lo, _hi): (u32, u32);
    // SAFETY: XGETBV with ECX = 0 reads XCR0, which OSXSAVE (checked above) makes readable.
    unsafe {
        std::arch::asm!("xgetbv", in("ecx") 0, out("eax") lo, out("edx") _hi, options(nomem, nostack, preserves_flags));
    }
    lo & (3 << 17) == 3 << 17
}

/// What the kernels use here: the CPU's features under `TENGEN_CPU`, read once. An unknown
/// `TENGEN_CPU` is said on stderr and ignored.
pub fn features() -> Features {
    static F: OnceLock<Features> = OnceLock::new();
    *F.get_or_init(|| {
        let cpu = Features::detected();
        match std::env::var("TENGEN_CPU") {
            Ok(v) if !v.trim().is_empty() => cpu.capped(&v).unwrap_or_else(|| {
                eprintln!("TENGEN_CPU={v:?} is none of {}: ignored", CAPS.join(", "));
                cpu
            }),
            _ => cpu,
        }
    })
}

/// Whether the matrix products run on Tengen's own loops rather than the gemm crate's
/// (which picks AVX-512 or AVX2 by itself): where `TENGEN_CPU` took either away.
pub fn own_products() -> bool {
    static OWN: OnceLock<bool> = OnceLock::new();
    *OWN.get_or_init(|| {
        let (f, cpu) = (features(), Features::detected());
        f.avx512 != cpu.avx512 || f.avx2 != cpu.avx2
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_only_takes_away() {
        let all = Features {
            avx2: true,
            avx512: true,
            avx512bf16: true,
            avx512vnni: true,
            amxint8: true,
            avxvnni: true,
            capped: false,
        };
        assert_eq!(all.capped("native"), Some(all));
        let vnni = all.capped("avx512vnni").unwrap();
        assert!(vnni.avx512bf16 && vnni.avx512vnni && !vnni.amxint8 && vnni.capped);
        let avx512 = all.capped("avx512").unwrap();
        assert!(avx512.avx512 && !avx512.avx512bf16 && !avx512.avx512vnni && avx512.capped);
        assert!(!avx512.amxint8);
        assert!(!avx512.avxvnni);
        let avx2 = all.capped("avx2").unwrap();
        assert!(avx2.avx2 && !avx2.avx512 && !avx2.avxvnni);
        let scalar = all.capped("scalar").unwrap();
        assert!(!scalar.avx2 && scalar.capped);
        assert_eq!(all.capped("sse9"), None);
        let old = Features {
            avx2: true,
            ..Features::default()
        };
        // Nothing added: an AVX2 CPU under `avx512` is an AVX2 CPU, not capped.
        assert_eq!(old.capped("avx512"), Some(old));
        assert_eq!(scalar.describe().split(' ').next(), Some("scalar"));
    }
}
