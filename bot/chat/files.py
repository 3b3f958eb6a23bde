"""/chart as a photo and /export as CSV documents (the console writes them to files)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from telegram import InputFile, Message

from bot.delivery.messages import send
from bot.presentation.chart_process import draw_apart
from bot.presentation.export_csv import export_files
from bot.presentation.out import Out
from bot.presentation.render import Renderer
from bot.presentation.render_insight import chart_caption, chart_texts, export_caption
from service.replies import ChartData, ExportData


async def send_file(message: Message, r: Renderer, data: ChartData | ExportData) -> None:
    """The picture, drawn in a process of its own; or the export's files."""
    if isinstance(data, ExportData):
        await send_export(message, r, data)
        return
    if not data.series:
        await send(message, Out(chart_caption(r._, data)))
        return
    png = await draw_apart(data, *chart_texts(r._, data))
    photo = InputFile(png, filename=data.filename)
    await message.reply_photo(photo, caption=chart_caption(r._, data))


async def send_export(message: Message, r: Renderer, data: ExportData) -> None:
    """/export: the rows stream into files in a worker thread (`bot.presentation.export_csv`),
    then go up one by one, the caption on the first."""
    with tempfile.TemporaryDirectory(prefix="jifen-export-") as tmp:
        files = await asyncio.to_thread(export_files, data, r.lang, Path(tmp))
        for n, path in enumerate(files):
            document = InputFile(await asyncio.to_thread(path.read_bytes), filename=path.name)
            caption = export_caption(r._, data) if n == 0 else None
            await message.reply_document(document, caption=caption)
