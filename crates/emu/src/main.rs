//! `airtcp-emulate`: see [`airtcp_emu::cli::USAGE`] and docs/emulate.md.

use airtcp_emu::{cli, emulate, netns};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{}", cli::USAGE);
        return;
    }
    let cfg = match cli::parse(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("airtcp-emulate: {e}\n{}", cli::USAGE);
            std::process::exit(1);
        }
    };
    if cfg.clock == emulate::Clock::Real && !netns::has_net_admin() {
        eprintln!("airtcp-emulate: needs CAP_NET_ADMIN (run as root) to create network namespaces and TUN devices");
        std::process::exit(2);
    }
    match emulate::run(&cfg) {
        Ok(o) => {
            eprintln!("lateness: {}", o.lateness);
            if o.interrupted {
                std::process::exit(130);
            }
            if o.overloaded {
                eprintln!("airtcp-emulate: overloaded: more than 1 % of events ran more than 1 ms late (see summary.json emulation.lateness)");
                std::process::exit(3);
            }
        }
        Err(e) => {
            eprintln!("airtcp-emulate: {e}");
            std::process::exit(1);
        }
    }
}
