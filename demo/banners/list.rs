// Written by demo/banners/make.py: the demo's banners, for src/fetch/snapshot.rs.
[
    ("218f423cfc3f8432e24c92a337069e480e28714e89b7c8ebb677e61d700012ad", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/218f423cfc3f8432e24c92a337069e480e28714e89b7c8ebb677e61d700012ad")).as_slice()),
    ("26c09d7781c3d6ef018b1a36323975cedc1d2332b34927b7c0b44bd616fb8228", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/26c09d7781c3d6ef018b1a36323975cedc1d2332b34927b7c0b44bd616fb8228")).as_slice()),
    ("41ec47ede25b02a9619fbb1801b2c2341a043410ae254cb9b0a7d7c409104469", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/41ec47ede25b02a9619fbb1801b2c2341a043410ae254cb9b0a7d7c409104469")).as_slice()),
    ("8038f3dabcb2bf4c15956ad297f7438d5aab11c7b2ae4a91ac44c726f5736786", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/8038f3dabcb2bf4c15956ad297f7438d5aab11c7b2ae4a91ac44c726f5736786")).as_slice()),
    ("8a3b6fceeec904fd1df2f98846aaecb410e5be7c2baacdda6f38585ee53e0c48", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/8a3b6fceeec904fd1df2f98846aaecb410e5be7c2baacdda6f38585ee53e0c48")).as_slice()),
    ("8eb8b303cac62d0dc409f7c249324d2f316cb93026be790de29bd0ffc9c47033", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/8eb8b303cac62d0dc409f7c249324d2f316cb93026be790de29bd0ffc9c47033")).as_slice()),
    ("9648121f855258987d6c16fa8aa7b91c52cab7db825211ef678229a567abc516", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/9648121f855258987d6c16fa8aa7b91c52cab7db825211ef678229a567abc516")).as_slice()),
    ("acc9ac167b77294e1a39ad7d379bd00c8dc0c2b0aa03fe391a4418fd4698a396", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/acc9ac167b77294e1a39ad7d379bd00c8dc0c2b0aa03fe391a4418fd4698a396")).as_slice()),
    ("b16ba84e63c463b58767ac767aa483be95c59700518fa689fef56d3ca53c78ef", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/b16ba84e63c463b58767ac767aa483be95c59700518fa689fef56d3ca53c78ef")).as_slice()),
    ("bd23293b0b8db5d250a2af480fbff0101cbc726d0d7b37695bb09110380c525a", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/bd23293b0b8db5d250a2af480fbff0101cbc726d0d7b37695bb09110380c525a")).as_slice()),
    ("bdabd989d6641ae85fd0c8e7312db61224cf421906bee8c64c96380be9381e33", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/bdabd989d6641ae85fd0c8e7312db61224cf421906bee8c64c96380be9381e33")).as_slice()),
    ("e92f76f254a7b33fa1d049356f2bc96964e8bd94f4cecf5146a9dc018cba1faf", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/e92f76f254a7b33fa1d049356f2bc96964e8bd94f4cecf5146a9dc018cba1faf")).as_slice()),
    ("fa69fcde4613781af6b4876af879327c5bb8f2dfbc6a87c2322b8488d02b591e", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/demo/banners/fa69fcde4613781af6b4876af879327c5bb8f2dfbc6a87c2322b8488d02b591e")).as_slice()),
]
