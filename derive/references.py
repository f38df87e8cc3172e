"""The works that derivations cite: one home for every reference.

:data:`REFERENCES` maps a BibTeX key to the fields of the entry. The docs'
bibliography is generated from this table (:func:`bibtex`), and
:class:`~derive.core.Citation` objects name these keys.
"""

from __future__ import annotations

#: key -> BibTeX fields (``type`` is the entry type).
REFERENCES: dict[str, dict[str, str]] = {
    "vaswani2017": {
        "type": "inproceedings",
        "author": "Vaswani, Ashish and Shazeer, Noam and Parmar, Niki and Uszkoreit, Jakob and Jones, Llion "
                  "and Gomez, Aidan N. and Kaiser, {\\L}ukasz and Polosukhin, Illia",
        "title": "Attention Is All You Need",
        "booktitle": "Advances in Neural Information Processing Systems 30",
        "year": "2017",
        "short": "Vaswani et al. 2017",
    },
    "ba2016": {
        "type": "article",
        "author": "Ba, Jimmy Lei and Kiros, Jamie Ryan and Hinton, Geoffrey E.",
        "title": "Layer Normalization",
        "journal": "arXiv preprint arXiv:1607.06450",
        "year": "2016",
        "short": "Ba et al. 2016",
    },
    "he2016": {
        "type": "inproceedings",
        "author": "He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian",
        "title": "Deep Residual Learning for Image Recognition",
        "booktitle": "Proceedings of the IEEE Conference on Computer Vision and Pattern Recognition (CVPR)",
        "year": "2016",
        "short": "He et al. 2016",
    },
    "xiong2020": {
        "type": "inproceedings",
        "author": "Xiong, Ruibin and Yang, Yunchang and He, Di and Zheng, Kai and Zheng, Shuxin and Xing, Chen "
                  "and Zhang, Huishuai and Lan, Yanyan and Wang, Liwei and Liu, Tie-Yan",
        "title": "On Layer Normalization in the Transformer Architecture",
        "booktitle": "Proceedings of the 37th International Conference on Machine Learning (ICML)",
        "year": "2020",
        "short": "Xiong et al. 2020",
    },
    "zhang2019": {
        "type": "inproceedings",
        "author": "Zhang, Biao and Sennrich, Rico",
        "title": "Root Mean Square Layer Normalization",
        "booktitle": "Advances in Neural Information Processing Systems 32",
        "year": "2019",
        "short": "Zhang & Sennrich 2019",
    },
    "shazeer2020": {
        "type": "article",
        "author": "Shazeer, Noam",
        "title": "GLU Variants Improve Transformer",
        "journal": "arXiv preprint arXiv:2002.05202",
        "year": "2020",
        "short": "Shazeer 2020",
    },
    "brown2020": {
        "type": "inproceedings",
        "author": "Brown, Tom B. and Mann, Benjamin and Ryder, Nick and others",
        "title": "Language Models are Few-Shot Learners",
        "booktitle": "Advances in Neural Information Processing Systems 33",
        "year": "2020",
        "short": "Brown et al. 2020",
    },
    "touvron2023": {
        "type": "article",
        "author": "Touvron, Hugo and Lavril, Thibaut and Izacard, Gautier and others",
        "title": "LLaMA: Open and Efficient Foundation Language Models",
        "journal": "arXiv preprint arXiv:2302.13971",
        "year": "2023",
        "short": "Touvron et al. 2023",
    },
    "kaplan2020": {
        "type": "article",
        "author": "Kaplan, Jared and McCandlish, Sam and Henighan, Tom and others",
        "title": "Scaling Laws for Neural Language Models",
        "journal": "arXiv preprint arXiv:2001.08361",
        "year": "2020",
        "short": "Kaplan et al. 2020",
    },
    "radford2019": {
        "type": "techreport",
        "author": "Radford, Alec and Wu, Jeffrey and Child, Rewon and Luan, David and Amodei, Dario "
                  "and Sutskever, Ilya",
        "title": "Language Models are Unsupervised Multitask Learners",
        "institution": "OpenAI",
        "year": "2019",
        "short": "Radford et al. 2019",
    },
    "devlin2019": {
        "type": "inproceedings",
        "author": "Devlin, Jacob and Chang, Ming-Wei and Lee, Kenton and Toutanova, Kristina",
        "title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
        "booktitle": "Proceedings of NAACL-HLT 2019",
        "year": "2019",
        "short": "Devlin et al. 2019",
    },
    "raffel2020": {
        "type": "article",
        "author": "Raffel, Colin and Shazeer, Noam and Roberts, Adam and others",
        "title": "Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer",
        "journal": "Journal of Machine Learning Research",
        "volume": "21",
        "year": "2020",
        "short": "Raffel et al. 2020",
    },
    "touvron2023b": {
        "type": "article",
        "author": "Touvron, Hugo and Martin, Louis and Stone, Kevin and others",
        "title": "Llama 2: Open Foundation and Fine-Tuned Chat Models",
        "journal": "arXiv preprint arXiv:2307.09288",
        "year": "2023",
        "short": "Touvron et al. 2023b",
    },
    "jiang2023": {
        "type": "article",
        "author": "Jiang, Albert Q. and Sablayrolles, Alexandre and Mensch, Arthur and others",
        "title": "Mistral 7B",
        "journal": "arXiv preprint arXiv:2310.06825",
        "year": "2023",
        "short": "Jiang et al. 2023",
    },
    "ainslie2023": {
        "type": "inproceedings",
        "author": "Ainslie, Joshua and Lee-Thorp, James and de Jong, Michiel and Zemlyanskiy, Yury "
                  "and Lebr{\\'o}n, Federico and Sanghai, Sumit",
        "title": "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints",
        "booktitle": "Proceedings of EMNLP 2023",
        "year": "2023",
        "short": "Ainslie et al. 2023",
    },
    "hendrycks2016": {
        "type": "article",
        "author": "Hendrycks, Dan and Gimpel, Kevin",
        "title": "Gaussian Error Linear Units (GELUs)",
        "journal": "arXiv preprint arXiv:1606.08415",
        "year": "2016",
        "short": "Hendrycks & Gimpel 2016",
    },
    "ramachandran2017": {
        "type": "article",
        "author": "Ramachandran, Prajit and Zoph, Barret and Le, Quoc V.",
        "title": "Searching for Activation Functions",
        "journal": "arXiv preprint arXiv:1710.05941",
        "year": "2017",
        "short": "Ramachandran et al. 2017",
    },
    "rajbhandari2020": {
        "type": "inproceedings",
        "author": "Rajbhandari, Samyam and Rasley, Jeff and Ruwase, Olatunji and He, Yuxiong",
        "title": "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
        "booktitle": "Proceedings of the International Conference for High Performance Computing, Networking, "
                     "Storage and Analysis (SC20)",
        "year": "2020",
        "short": "Rajbhandari et al. 2020",
    },
    "micikevicius2018": {
        "type": "inproceedings",
        "author": "Micikevicius, Paulius and Narang, Sharan and Alben, Jonah and others",
        "title": "Mixed Precision Training",
        "booktitle": "International Conference on Learning Representations (ICLR)",
        "year": "2018",
        "short": "Micikevicius et al. 2018",
    },
    "kingma2015": {
        "type": "inproceedings",
        "author": "Kingma, Diederik P. and Ba, Jimmy",
        "title": "Adam: A Method for Stochastic Optimization",
        "booktitle": "International Conference on Learning Representations (ICLR)",
        "year": "2015",
        "short": "Kingma & Ba 2015",
    },
    "shazeer2019": {
        "type": "article",
        "author": "Shazeer, Noam",
        "title": "Fast Transformer Decoding: One Write-Head is All You Need",
        "journal": "arXiv preprint arXiv:1911.02150",
        "year": "2019",
        "short": "Shazeer 2019",
    },
    "jiang2024": {
        "type": "article",
        "author": "Jiang, Albert Q. and Sablayrolles, Alexandre and Roux, Antoine and others",
        "title": "Mixtral of Experts",
        "journal": "arXiv preprint arXiv:2401.04088",
        "year": "2024",
        "short": "Jiang et al. 2024",
    },
    "pope2023": {
        "type": "inproceedings",
        "author": "Pope, Reiner and Douglas, Sholto and Chowdhery, Aakanksha and others",
        "title": "Efficiently Scaling Transformer Inference",
        "booktitle": "Proceedings of Machine Learning and Systems (MLSys)",
        "year": "2023",
        "short": "Pope et al. 2023",
    },
    "goodfellow2016": {
        "type": "book",
        "author": "Goodfellow, Ian and Bengio, Yoshua and Courville, Aaron",
        "title": "Deep Learning",
        "publisher": "MIT Press",
        "year": "2016",
        "short": "Goodfellow et al. 2016",
    },
    "zhang2023d2l": {
        "type": "book",
        "author": "Zhang, Aston and Lipton, Zachary C. and Li, Mu and Smola, Alexander J.",
        "title": "Dive into Deep Learning",
        "publisher": "Cambridge University Press",
        "year": "2023",
        "short": "Zhang et al. 2023 (D2L)",
    },
    "su2021": {
        "type": "article",
        "author": "Su, Jianlin and Lu, Yu and Pan, Shengfeng and Murtadha, Ahmed and Wen, Bo and Liu, Yunfeng",
        "title": "RoFormer: Enhanced Transformer with Rotary Position Embedding",
        "journal": "arXiv preprint arXiv:2104.09864",
        "year": "2021",
        "short": "Su et al. 2021",
    },
    "press2022": {
        "type": "inproceedings",
        "author": "Press, Ofir and Smith, Noah A. and Lewis, Mike",
        "title": "Train Short, Test Long: Attention with Linear Biases Enables Input Length Extrapolation",
        "booktitle": "International Conference on Learning Representations (ICLR)",
        "year": "2022",
        "short": "Press et al. 2022",
    },
    "milakov2018": {
        "type": "article",
        "author": "Milakov, Maxim and Gimelshein, Natalia",
        "title": "Online normalizer calculation for softmax",
        "journal": "arXiv preprint arXiv:1805.02867",
        "year": "2018",
        "short": "Milakov & Gimelshein 2018",
    },
    "dao2022": {
        "type": "inproceedings",
        "author": "Dao, Tri and Fu, Daniel Y. and Ermon, Stefano and Rudra, Atri and R{\\'e}, Christopher",
        "title": "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
        "booktitle": "Advances in Neural Information Processing Systems 35",
        "year": "2022",
        "short": "Dao et al. 2022",
    },
    "glorot2010": {
        "type": "inproceedings",
        "author": "Glorot, Xavier and Bengio, Yoshua",
        "title": "Understanding the Difficulty of Training Deep Feedforward Neural Networks",
        "booktitle": "Proceedings of the 13th International Conference on Artificial Intelligence and Statistics "
                     "(AISTATS)",
        "year": "2010",
        "short": "Glorot & Bengio 2010",
    },
    "he2015": {
        "type": "inproceedings",
        "author": "He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian",
        "title": "Delving Deep into Rectifiers: Surpassing Human-Level Performance on ImageNet Classification",
        "booktitle": "Proceedings of the IEEE International Conference on Computer Vision (ICCV)",
        "year": "2015",
        "short": "He et al. 2015",
    },
    "hoffmann2022": {
        "type": "inproceedings",
        "author": "Hoffmann, Jordan and Borgeaud, Sebastian and Mensch, Arthur and Buchatskaya, Elena and others",
        "title": "Training Compute-Optimal Large Language Models",
        "booktitle": "Advances in Neural Information Processing Systems 35",
        "year": "2022",
        "short": "Hoffmann et al. 2022",
    },
    "chen2023": {
        "type": "article",
        "author": "Chen, Shouyuan and Wong, Sherman and Chen, Liangjian and Tian, Yuandong",
        "title": "Extending Context Window of Large Language Models via Positional Interpolation",
        "journal": "arXiv preprint arXiv:2306.15595",
        "year": "2023",
        "short": "Chen et al. 2023",
    },
}


def short(key: str) -> str:
    """Author-year form of ``key`` (``"Vaswani et al. 2017"``); the key itself if unknown."""
    ref = REFERENCES.get(key)
    return ref["short"] if ref else key


def bibtex(keys: list[str] | None = None) -> str:
    """The BibTeX text of ``keys`` (all when ``None``), for the docs' bibliography."""
    out = []
    for key in keys or sorted(REFERENCES):
        fields = REFERENCES[key]
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if k not in ("type", "short"))
        out.append(f"@{fields['type']}{{{key},\n{body}\n}}\n")
    return "\n".join(out)
