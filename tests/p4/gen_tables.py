"""Differential test for table matching: random ternary/lpm/range/exact entries added through
STF and random keys; expected actions from a Python model (larger STF priority wins, longest
prefix wins). Writes t.p4/t.stf in the working directory and runs build/ddlsim on them.
    python3 tests/p4/gen_tables.py SEED"""
import random, subprocess, sys, os
random.seed(int(sys.argv[1]))
prog = '''#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> t; bit<32> ip; bit<16> r; bit<8> e1; bit<8> e2;
             bit<16> rt; bit<16> rl; bit<16> rr; bit<16> re; }
struct headers { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; } }
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    action at(bit<16> v) { hdr.h.rt = v; }
    action al(bit<16> v) { hdr.h.rl = v; }
    action ar(bit<16> v) { hdr.h.rr = v; }
    action ae(bit<16> v) { hdr.h.re = v; }
    table tt { key = { hdr.h.t: ternary; hdr.h.e1: ternary; } actions = { at; } }
    table tl { key = { hdr.h.ip: lpm; } actions = { al; } }
    table tr { key = { hdr.h.r: range; hdr.h.e2: exact; } actions = { ar; } }
    table te { key = { hdr.h.e1: exact; hdr.h.e2: exact; } actions = { ae; } }
    apply { tt.apply(); tl.apply(); tr.apply(); te.apply(); sm.egress_spec = 1; }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
'''
L=[]
tern=[]; prios=random.sample(range(1,1000),40)
for i in range(40):
    v=random.getrandbits(16); m=random.getrandbits(16)&random.getrandbits(16)
    v2=random.getrandbits(8); m2=random.choice([0,0xff,0x0f,random.getrandbits(8)])
    tern.append((prios[i],v&m,m,v2&m2,m2,i+1))
    L.append(f"add tt {prios[i]} hdr.h.t:0x{v:04x}&&&0x{m:04x} hdr.h.e1:0x{v2:02x}&&&0x{m2:02x} at(v:{i+1})")
lpm=[]; seen=set()
for i in range(40):
    pl=random.randint(0,32); v=random.getrandbits(32)
    mask=((1<<pl)-1)<<(32-pl) if pl else 0
    if (v&mask,pl) in seen: continue
    seen.add((v&mask,pl)); lpm.append((v&mask,mask,pl,100+i))
    L.append(f"add tl hdr.h.ip:0x{v:08x}/{pl} al(v:{100+i})")
rng=[]; rprios=random.sample(range(1,1000),30)
for i in range(30):
    a=random.getrandbits(16); b=random.getrandbits(16); lo,hi=min(a,b),max(a,b)
    e=random.randint(0,3)
    rng.append((rprios[i],lo,hi,e,200+i))
    L.append(f"add tr {rprios[i]} hdr.h.r:{lo}->{hi} hdr.h.e2:{e} ar(v:{200+i})")
ex={}
for i in range(30):
    k=(random.randint(0,7),random.randint(0,7))
    if k in ex: continue
    ex[k]=300+i
    L.append(f"add te hdr.h.e1:{k[0]} hdr.h.e2:{k[1]} ae(v:{300+i})")
for n in range(60):
    t=random.choice([random.getrandbits(16)]+[x[1] for x in tern])
    ip=random.choice([random.getrandbits(32)]+[x[0]|random.getrandbits(8) for x in lpm])
    r=random.choice([random.getrandbits(16)]+[x[1] for x in rng]+[x[2] for x in rng])
    e1=random.randint(0,7); e2=random.randint(0,3)
    best=None
    for (p,v,m,v2,m2,a) in tern:
        if (t&m)==v and (e1&m2)==v2 and (best is None or p>best[0]): best=(p,a)
    rt=best[1] if best else 0
    bl=None
    for (v,m,pl,a) in lpm:
        if (ip&m)==v and (bl is None or pl>bl[0]): bl=(pl,a)
    rl=bl[1] if bl else 0
    br=None
    for (p,lo,hi,e,a) in rng:
        if lo<=r<=hi and e==e2 and (br is None or p>br[0]): br=(p,a)
    rr=br[1] if br else 0
    re_=ex.get((e1,e2),0)
    pin=t.to_bytes(2,'big')+ip.to_bytes(4,'big')+r.to_bytes(2,'big')+bytes([e1,e2])+bytes(8)
    pout=pin[:10]+rt.to_bytes(2,'big')+rl.to_bytes(2,'big')+rr.to_bytes(2,'big')+re_.to_bytes(2,'big')
    L.append("packet 0 "+pin.hex()); L.append("expect 1 "+pout.hex()+" $")
open('t.p4','w').write(prog); open('t.stf','w').write("\n".join(L)+"\n")
root=os.path.join(os.path.dirname(os.path.abspath(__file__)),'..','..')
r=subprocess.run([os.environ.get('DDLSIM', os.path.join(root,'build','ddlsim')),'p4','test','t.p4','t.stf'],capture_output=True,text=True,
                 env=dict(os.environ, DDLSIM_P4_INCLUDE=os.path.join(root,'p4','include')))
if r.returncode: print(r.stdout[-2000:],r.stderr[-2000:]); sys.exit(1)
