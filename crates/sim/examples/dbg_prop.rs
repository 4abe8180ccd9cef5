use airtcp_sim::{run, RunOptions, Scenario};
fn main() {
    let text = std::fs::read_to_string("/tmp/prop.toml").unwrap();
    let s = Scenario::from_toml_str(&text, "prop.toml", &[]).unwrap();
    let o = run(&s, RunOptions { seed: Some(806492), ..Default::default() }).unwrap();
    for e in &o.events { if e.t_s > 3.0 { println!("{:.6} {} {}", e.t_s, e.kind, e.detail); } }
}
