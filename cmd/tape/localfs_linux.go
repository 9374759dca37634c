package main

import "syscall"

// remoteFS are the statfs magic numbers of file systems whose writes may
// come from another machine, which inotify never reports: network file
// systems, FUSE (sshfs and the like) and 9p (shared folders of VMs and
// WSL).
var remoteFS = map[int64]string{
	0x6969:     "nfs",
	0x517b:     "smb",
	0xff534d42: "cifs",
	0xfe534d42: "smb2",
	0x65735546: "fuse",
	0x01021997: "9p",
	0x564c:     "ncp",
	0x73757245: "coda",
	0x5346414f: "afs",
	0x47504653: "gpfs",
	0x0bd00bd0: "lustre",
	0x013111a8: "ibrix",
	0x19830326: "fhgfs",
	0xa501fcf5: "vxfs",
	0x61636673: "acfs",
	0x6b414653: "afs",
	0x7461636f: "ocfs2",
	0x01161970: "gfs2",
	0x00c36400: "ceph",
}

// remoteFileSystem names the file system dir is on if writes to it may
// come from another machine; "" if not, or if it cannot tell.
func remoteFileSystem(dir string) string {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return ""
	}
	return remoteFS[int64(st.Type)]
}
