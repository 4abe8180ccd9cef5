//! pcap capture writer (to be implemented).
