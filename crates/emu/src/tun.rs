//! A TUN device (Documentation/networking/tuntap.rst): an L3 interface whose
//! packets a process reads and writes through a file descriptor. Opened
//! without `IFF_VNET_HDR` and without offloads, the kernel hands over
//! whole datagrams with their checksums computed, one per read. With
//! `offload` (`--tun-offload`), it is opened with `IFF_VNET_HDR` and
//! offered checksum and TCPv4 segmentation offload (TUNSETOFFLOAD): reads
//! start with a virtio header and may carry a TSO super-packet, which
//! [`crate::gso::split`] cuts up; writes carry a virtio header, zero for
//! one datagram or a GSO header for a super-packet ([`crate::coalesce`]).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const TUNSETIFF: libc::c_ulong = 0x4004_54ca; // _IOW('T', 202, int), linux/if_tun.h
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;
const IFF_VNET_HDR: libc::c_short = 0x4000;
const TUNSETOFFLOAD: libc::c_ulong = 0x4004_54d0; // _IOW('T', 208, unsigned int)
const TUN_F_CSUM: libc::c_ulong = 0x01;
const TUN_F_TSO4: libc::c_ulong = 0x02;

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

pub struct Tun {
    fd: OwnedFd,
    pub name: String,
    /// Opened with `IFF_VNET_HDR` and offloads (see the module doc).
    pub offload: bool,
}

impl Tun {
    /// Create TUN device `name` (at most 15 bytes), non-blocking.
    pub fn create(name: &str, offload: bool) -> io::Result<Tun> {
        if name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("interface name {name:?} is longer than 15 bytes")));
        }
        let path = b"/dev/net/tun\0";
        // SAFETY: a NUL-terminated path; the returned fd is checked.
        let fd = unsafe { libc::open(path.as_ptr().cast(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd is a fresh, owned descriptor.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let flags = IFF_TUN | IFF_NO_PI | if offload { IFF_VNET_HDR } else { 0 };
        let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags, _pad: [0; 22] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: TUNSETIFF reads and writes one struct ifreq, which IfReq lays out.
        if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req) } < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: TUNSETOFFLOAD takes the offload bits as its argument.
        if offload && unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETOFFLOAD as _, TUN_F_CSUM | TUN_F_TSO4) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Tun { fd, name: name.to_string(), offload })
    }

    /// One datagram into `buf`; `Ok(None)` when none is waiting.
    #[inline]
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: buf is valid for buf.len() bytes.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::WouldBlock { Ok(None) } else { Err(e) };
        }
        Ok(Some(n as usize))
    }

    /// Hand one datagram to the kernel (after a zero virtio header when
    /// offloading: no segmentation asked, checksums complete).
    #[inline]
    pub fn send(&self, bytes: &[u8]) -> io::Result<()> {
        static ZERO_HDR: [u8; crate::gso::VNET_HDR_LEN] = [0; crate::gso::VNET_HDR_LEN];
        let iov = [
            libc::iovec { iov_base: ZERO_HDR.as_ptr() as *mut _, iov_len: ZERO_HDR.len() },
            libc::iovec { iov_base: bytes.as_ptr() as *mut _, iov_len: bytes.len() },
        ];
        let skip = usize::from(!self.offload);
        // SAFETY: both iovecs point at live buffers of their lengths; the
        // kernel only reads them.
        let n = unsafe { libc::writev(self.fd.as_raw_fd(), iov[skip..].as_ptr(), (2 - skip) as _) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// One write of `bytes` as they are (a virtio header first when the
    /// TUN offloads).
    #[inline]
    pub fn send_raw(&self, bytes: &[u8]) -> io::Result<()> {
        // SAFETY: bytes is valid for bytes.len() bytes; the kernel only reads it.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}
