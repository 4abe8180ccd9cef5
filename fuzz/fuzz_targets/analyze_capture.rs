#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    airtcp_fuzz::analyze_capture(data);
});
